import Foundation
import NIOCore

/// The fields of an `application/x-www-form-urlencoded` body, the first value of each name.
package struct ConsoleForm: Sendable {
    private var fields: [String: String] = [:]

    /// Parses `body`; malformed pairs are skipped.
    package init(body: ByteBuffer) {
        self.init(encoded: String(buffer: body))
    }

    /// Parses `encoded` (`a=1&b=two+words`).
    package init(encoded: String) {
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if fields[name] == nil, let value { fields[name] = value }
        }
    }

    /// The value of `name`, `nil` when absent.
    package subscript(_ name: String) -> String? { fields[name] }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
