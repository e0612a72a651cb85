import Crypto
import Foundation

/// The App Store Connect API key the App Store Server API wants: `APPLE_ISSUER_ID`, `APPLE_KEY_ID` and the
/// `.p8` private key of `APPLE_PRIVATE_KEY_FILE`. Its description never shows the key.
package struct ServerAPICredentials: Sendable, CustomStringConvertible {
    /// The issuer id from App Store Connect (Users and Access → Integrations).
    package var issuerID: String
    /// The key's id.
    package var keyID: String
    /// The private key (PKCS#8 P-256).
    package var privateKey: P256.Signing.PrivateKey

    /// Creates credentials.
    package init(issuerID: String, keyID: String, privateKey: P256.Signing.PrivateKey) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.privateKey = privateKey
    }

    /// Reads the key from a `.p8` PEM; `nil` when it is not a P-256 private key.
    package init?(issuerID: String, keyID: String, pem: String) {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else { return nil }
        self.init(issuerID: issuerID, keyID: keyID, privateKey: key)
    }

    /// A bearer token for `bundleID`, valid five minutes from `now` (Apple allows at most 60).
    func bearerToken(bundleID: String, now: Date = Date()) throws -> String {
        let issued = Int64(now.timeIntervalSince1970)
        let header = JSONText.object([("alg", .string("ES256")), ("kid", .string(keyID)), ("typ", .string("JWT"))])
        let claims = JSONText.object([
            ("iss", .string(issuerID)), ("iat", .int(issued)), ("exp", .int(issued + Self.tokenLifetimeSeconds)),
            ("aud", .string("appstoreconnect-v1")), ("bid", .string(bundleID)),
        ])
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// How long a token lives.
    static let tokenLifetimeSeconds: Int64 = 300

    /// Names the key without showing it.
    package var description: String { "App Store Server API key \(keyID) of issuer \(issuerID)" }
}
