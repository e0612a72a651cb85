import Foundation
import _CryptoExtras

/// A Google Cloud service account's JSON key (`GOOGLE_SERVICE_ACCOUNT_FILE`): who it is, its RSA key, and where
/// to trade an assertion for an access token. Its description never shows the key.
package struct GoogleServiceAccount: Sendable, CustomStringConvertible {
    /// `client_email`: the account, and the `iss` of its assertions.
    package var clientEmail: String
    /// `private_key`, PKCS#8 RSA.
    package var privateKey: _RSA.Signing.PrivateKey
    /// `token_uri`: the OAuth 2.0 token endpoint (Google's, or a stand-in's).
    package var tokenURI: String

    /// Why a key file cannot be used; never quotes the key.
    package struct FormatError: Error, CustomStringConvertible {
        /// What is wrong.
        package var description: String
    }

    /// Reads the JSON Google Cloud gives for a service-account key.
    package init(json: Data) throws(FormatError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw FormatError(description: "is not a JSON object")
        }
        func field(_ name: String) throws(FormatError) -> String {
            guard let value = fields[name] as? String, !value.isEmpty else {
                throw FormatError(description: "has no \(name)")
            }
            return value
        }
        clientEmail = try field("client_email")
        tokenURI = try field("token_uri")
        guard let url = URL(string: tokenURI),
            url.scheme == "https" || (url.scheme == "http" && EnvironmentReader.isLoopback(url.host ?? ""))
        else {
            throw FormatError(description: "has a token_uri that is not https (plain http only on loopback)")
        }
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try field("private_key"))
        } catch {
            throw FormatError(description: "has a private_key that is not an RSA private key in PEM")
        }
    }

    /// Names the account, never the key.
    package var description: String { "Google service account \(clientEmail)" }
}
