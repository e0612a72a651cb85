import Foundation

/// The unpadded base64url alphabet of JOSE (RFC 7515 §2), over Foundation's base64: every part of a JWS and a
/// JWT. The stand-in stores use this one too, to sign what they answer and check what they are sent.
///
/// Both directions swap the two differing characters byte by byte: string searches through Foundation's
/// `replacingOccurrences` cost more than the signature check of the JWS they decode.
package enum Base64URL {
    /// Encodes bytes without padding.
    package static func encode(_ bytes: some DataProtocol) -> String {
        let standard = Data(bytes).base64EncodedData()
        var text = [UInt8]()
        text.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): break
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes unpadded (or padded) base64url; `nil` when the text is not base64url.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var standard = [UInt8]()
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            // Standard base64 characters are not base64url: refuse them rather than accept two alphabets.
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: standard.append(byte)
            }
        }
        while standard.count % 4 != 0 {
            standard.append(UInt8(ascii: "="))
        }
        return Data(base64Encoded: Data(standard))
    }
}
