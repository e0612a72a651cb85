import Foundation
import ReceiptdCore
import _CryptoExtras

/// Checks the assertion of an OAuth 2.0 JWT bearer grant the way Google's token endpoint does for a service
/// account: RS256 by the account's key, its email as issuer, the Android Publisher scope, this endpoint as audience,
/// and at most an hour of life.
struct GoogleAssertionCheck: Sendable {
    /// The scope the daemon needs.
    static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"

    let account: GoogleServiceAccountKey
    /// The token endpoint's URL, which `aud` must name.
    let audience: String

    /// Why the assertion is refused, or `nil` when it is accepted.
    func failure(assertion: String, now: Date = Date()) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.object(parts[0]), let claims = Self.object(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return "the assertion is not a JWT" }
        guard header["alg"] as? String == "RS256" else { return "alg is not RS256" }
        // Google picks the key by kid when there is one; only this account's key exists here.
        if let kid = header["kid"], kid as? String != account.privateKeyID {
            return "kid is not the key's private_key_id"
        }
        guard
            account.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: Data(assertion[..<parts[1].endIndex].utf8),
                padding: .insecurePKCS1v1_5
            )
        else { return "invalid signature" }

        guard claims["iss"] as? String == account.clientEmail else { return "iss is not \(account.clientEmail)" }
        let scopes = (claims["scope"] as? String)?.split(separator: " ") ?? []
        guard scopes.contains(Substring(Self.androidPublisherScope)) else {
            return "scope lacks \(Self.androidPublisherScope)"
        }
        guard claims["aud"] as? String == audience else { return "aud is not \(audience)" }
        guard let issuedAt = Self.seconds(claims["iat"]), let expiresAt = Self.seconds(claims["exp"]) else {
            return "iat or exp missing"
        }
        let nowSeconds = now.timeIntervalSince1970
        if issuedAt > nowSeconds + 60 { return "iat in the future" }
        if expiresAt <= nowSeconds { return "expired assertion" }
        if expiresAt - issuedAt > 3600 { return "exp more than an hour after iat" }
        return nil
    }

    /// A NumericDate claim; JWT allows fractions though Google's libraries send whole seconds.
    private static func seconds(_ value: Any?) -> Double? {
        (value as? Int).map(Double.init) ?? value as? Double
    }

    /// A JWT segment's JSON object.
    private static func object(_ segment: Substring) -> [String: Any]? {
        Base64URL.decode(segment).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    }
}
