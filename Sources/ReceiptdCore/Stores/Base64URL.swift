import Foundation

/// base64url without padding (RFC 7515 §2), the encoding of every part of a JWS and a JWT.
enum Base64URL {
    /// Decodes one part; `nil` when it holds anything but the base64url alphabet.
    static func decode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Encodes bytes without padding.
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=",
                with: ""
            )
    }
}
