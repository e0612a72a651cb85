import Foundation
import _CryptoExtras

/// A made-up service-account key shaped like the JSON file Google Cloud hands out: the daemon signs its token
/// requests (RS256 assertions) with it, and the stand-in Google Play checks them against its public half.
package struct GoogleServiceAccountKey: Sendable {
    /// `client_email`, the `iss` the assertions must carry.
    package let clientEmail = "receiptd-test@receiptd-test.iam.gserviceaccount.com"
    /// `private_key_id`: 40 hex digits, like Google's.
    package let privateKeyID: String
    /// The RSA 2048 key.
    package let privateKey: _RSA.Signing.PrivateKey

    /// A fresh key.
    package static func generate() throws -> GoogleServiceAccountKey {
        let id = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        return GoogleServiceAccountKey(privateKeyID: id, privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The public half, which the stand-in checks assertions with.
    package var publicKey: _RSA.Signing.PublicKey {
        privateKey.publicKey
    }

    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as in Google's key files.
    package var privateKeyPEM: String {
        privateKey.pkcs8PEMRepresentation
    }

    /// The key file's JSON, naming `tokenURI` as the token endpoint (`token_uri`).
    package func json(tokenURI: String) -> String {
        let fields = [
            "type": "service_account", "project_id": "receiptd-test", "private_key_id": privateKeyID,
            "private_key": privateKeyPEM, "client_email": clientEmail, "client_id": "1", "token_uri": tokenURI,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a dictionary of strings cannot fail.
        return String(decoding: (try? encoder.encode(fields)) ?? Data(), as: UTF8.self)
    }
}
