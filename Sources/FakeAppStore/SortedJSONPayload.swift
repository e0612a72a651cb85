import Foundation

/// A payload the stand-in signs from its `Encodable` form: its JSON with keys sorted, so equal payloads sign equal
/// bytes.
protocol SortedJSONPayload: Encodable {}

extension SortedJSONPayload {
    /// The payload's JSON, keys sorted.
    func encodedJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch {
            // Strings, integers and booleans: encoding cannot fail.
            preconditionFailure("\(Self.self) failed to encode: \(error)")
        }
    }
}
