import Foundation

extension ConsoleUser {
    /// `name` in Unicode NFC, the one spelling under which names are stored, matched and counted: Swift's `==`
    /// treats canonically equivalent names as equal, so "\u{212A}ate" (KELVIN SIGN) is "Kate", and the failed
    /// sign-in limit must count them as one name too.
    package static func normalized(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping
    }
}
