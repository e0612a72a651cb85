import Foundation
import ReceiptdCore
import Synchronization
import _CryptoExtras

/// Stands in for Google's OIDC token issuer behind Pub/Sub push authentication: RSA keys published as a JWKS
/// (``jwksJSON``, served by the stand-in at `/oauth2/v3/certs`) and RS256 ID tokens signed with them. Tests make
/// every failing token from it too: another audience, another service account, expired, signed by a key it
/// never publishes, or by a key added by ``rotate()`` after the daemon cached the JWKS.
package final class GoogleOIDCIssuer: Sendable {
    /// The service account pushes come from by default (`email`).
    package static let defaultServiceAccountEmail = "pubsub-push@receiptd-test.iam.gserviceaccount.com"

    private struct Key: Sendable {
        var id: String
        var privateKey: _RSA.Signing.PrivateKey
    }

    private struct State: Sendable {
        var published: [Key]
        var current: Key
    }

    private let state: Mutex<State>

    /// A fresh issuer with one published key. `publishing` false makes an issuer whose keys nobody publishes (a
    /// forger's).
    package init(publishing: Bool = true) {
        let key = Self.generateKey()
        state = Mutex(State(published: publishing ? [key] : [], current: key))
    }

    /// Adds a new key, signs with it from now on, and publishes it beside the old ones (Google rotates the same
    /// way); returns its `kid`.
    @discardableResult
    package func rotate() -> String {
        let key = Self.generateKey()
        state.withLock {
            $0.published.append(key)
            $0.current = key
        }
        return key.id
    }

    /// The `kid` tokens are signed with now.
    package var currentKeyID: String { state.withLock { $0.current.id } }

    /// The published keys, `{"keys": [{"kty":"RSA","alg":"RS256","use":"sig","kid":…,"n":…,"e":…}, …]}`.
    package var jwksJSON: String {
        let keys = state.withLock { $0.published }
        let entries = keys.compactMap { key -> [String: String]? in
            guard let primitives = try? key.privateKey.publicKey.getKeyPrimitives() else { return nil }
            return [
                "kty": "RSA", "alg": "RS256", "use": "sig", "kid": key.id,
                "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
            ]
        }
        // Strings only: this always serializes.
        let data = try? JSONSerialization.data(withJSONObject: ["keys": entries], options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// An RS256 ID token like the ones Pub/Sub push sends: `iss`, `aud`, `email`, `email_verified`, `iat`, `exp`,
    /// `sub`, signed with the current key (`kid` overrides the header's key id, to forge an unknown one).
    package func token(
        audience: String,
        email: String = GoogleOIDCIssuer.defaultServiceAccountEmail,
        emailVerified: Bool = true,
        issuer: String = "https://accounts.google.com",
        issuedAt: Date = Date(),
        lifetime: Duration = .seconds(3600),
        kid: String? = nil
    ) -> String {
        let key = state.withLock { $0.current }
        let header = #"{"alg":"RS256","kid":"\#(kid ?? key.id)","typ":"JWT"}"#
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": issuer, "aud": audience, "azp": "1000000000000000000000", "email": email,
            "email_verified": emailVerified, "iat": iat, "exp": iat + lifetime.components.seconds,
            "sub": "1000000000000000000000",
        ]
        // A dictionary of strings, numbers and booleans always serializes.
        let payload = (try? JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) ?? Data()
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(payload)
        // Signing with a key this issuer generated fails only if the platform's crypto is broken.
        guard let signature = try? key.privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5) else {
            preconditionFailure("GoogleOIDCIssuer failed to sign")
        }
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    private static func generateKey() -> Key {
        let id = (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        do {
            return Key(id: id, privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch {
            preconditionFailure("GoogleOIDCIssuer failed to generate a key: \(error)")
        }
    }
}
