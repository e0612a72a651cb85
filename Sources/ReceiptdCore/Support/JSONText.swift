import Foundation

/// Encodes parameter values as JSON text, for statements that take a set of rows as one `jsonb` parameter.
enum JSONText {
    /// JSON text of arrays and dictionaries of strings and numbers.
    static func encode(_ value: Any) -> String {
        // Only called with arrays of strings or of string/number dictionaries, which always serialise.
        guard let data = try? JSONSerialization.data(withJSONObject: value) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}
