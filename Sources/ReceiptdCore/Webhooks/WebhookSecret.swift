import Crypto
import Foundation

/// A Standard Webhooks signing secret: `whsec_` and the base64 of the key's bytes. Its text never reaches a
/// message: errors say what is wrong with it, not what it is.
package struct WebhookSecret: Sendable, Equatable {
    /// The key's bytes, which HMAC-SHA256 is keyed with.
    package let key: [UInt8]

    /// Why a secret's text was refused.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        /// It does not start with `whsec_`.
        case missingPrefix
        /// What follows the prefix is not standard base64.
        case notBase64
        /// It decodes to fewer than 24 bytes.
        case tooShort(bytes: Int)

        /// The problem for people.
        package var description: String {
            switch self {
            case .missingPrefix: "does not start with whsec_"
            case .notBase64: "is not whsec_ followed by standard base64"
            case .tooShort(let bytes): "decodes to \(bytes) bytes; at least 24 are needed"
            }
        }
    }

    /// Reads `whsec_<base64>`; white space around it is ignored.
    package init(_ text: String) throws(Problem) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("whsec_") else { throw .missingPrefix }
        guard let bytes = Data(base64Encoded: String(trimmed.dropFirst("whsec_".count))) else { throw .notBase64 }
        // The specification's secrets are 24 to 64 bytes; shorter ones are too easy to guess.
        guard bytes.count >= 24 else { throw .tooShort(bytes: bytes.count) }
        key = Array(bytes)
    }

    /// The `v1,<base64>` signature of `body` sent as message `id` at `timestamp` (Unix seconds): HMAC-SHA256 of
    /// `id.timestamp.body`.
    package func signature(id: String, timestamp: Int64, body: some DataProtocol) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: key))
        mac.update(data: Array("\(id).\(timestamp).".utf8))
        mac.update(data: body)
        return "v1," + Data(mac.finalize()).base64EncodedString()
    }
}
