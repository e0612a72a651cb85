import _CryptoExtras
import Foundation

/// A service-account key like the JSON Google Cloud hands out, made up for the stand-in: the daemon signs its
/// token requests with it, and the stand-in checks them against its public half.
public struct GoogleServiceAccountKey: Sendable {
    /// `client_email`.
    public let clientEmail = "receiptd-test@receiptd-test.iam.gserviceaccount.com"
    /// The RSA 2048 key.
    public let privateKey: _RSA.Signing.PrivateKey

    /// A fresh key.
    public static func generate() throws -> GoogleServiceAccountKey {
        GoogleServiceAccountKey(privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The public half.
    public var publicKey: _RSA.Signing.PublicKey { privateKey.publicKey }

    /// The key file's JSON, naming `tokenURI` as its token endpoint.
    public func json(tokenURI: String) -> String {
        let object: [String: String] = [
            "type": "service_account", "project_id": "receiptd-test", "private_key_id": "0123456789abcdef",
            "private_key": privateKey.pkcs8PEMRepresentation, "client_email": clientEmail, "client_id": "1", "token_uri": tokenURI,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
