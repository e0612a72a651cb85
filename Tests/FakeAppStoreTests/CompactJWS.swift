import Crypto
import Foundation
import Testing
import X509

/// A compact JWS taken apart, to check what the stand-in signs with the stand-in's code out of the way.
struct CompactJWS {
    let header: [String: Any]
    let payload: Data
    let signature: Data
    let signingInput: String

    init(_ text: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let headerJSON = try #require(Self.base64URL(parts[0]))
        header = try #require(try JSONSerialization.jsonObject(with: headerJSON) as? [String: Any])
        payload = try #require(Self.base64URL(parts[1]))
        signature = try #require(Self.base64URL(parts[2]))
        signingInput = "\(parts[0]).\(parts[1])"
    }

    /// The header's `x5c` as DER certificates.
    var x5c: [[UInt8]] {
        (header["x5c"] as? [String] ?? []).compactMap { Data(base64Encoded: $0).map(Array.init) }
    }

    /// Whether the ES256 signature verifies with `certificate`'s key.
    func isSigned(by certificate: Certificate) throws -> Bool {
        let key = try #require(P256.Signing.PublicKey(certificate.publicKey))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        return key.isValidSignature(signature, for: Data(signingInput.utf8))
    }

    private static func base64URL(_ text: Substring) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
