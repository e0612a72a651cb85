import Foundation

/// The unpadded base64url alphabet of JOSE (RFC 7515 §2), over Foundation's base64: every part of a JWS and a
/// JWT. The stand-in stores use this one too, to sign what they answer and check what they are sent.
package enum Base64URL {
    /// Encodes bytes without padding.
    package static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.last == "=" {
            text.removeLast()
        }
        return text
    }

    /// Decodes unpadded (or padded) base64url; `nil` when the text is not base64url.
    package static func decode(_ text: some StringProtocol) -> Data? {
        // Standard base64 characters are not base64url: refuse them rather than accept two alphabets.
        guard !text.contains(where: { $0 == "+" || $0 == "/" }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if standard.count % 4 != 0 {
            standard += String(repeating: "=", count: 4 - standard.count % 4)
        }
        return Data(base64Encoded: standard)
    }
}
