import Foundation
import _CryptoExtras

/// Checks the OIDC token Cloud Pub/Sub puts on an authenticated push (`Authorization: Bearer <JWT>`): RS256 only,
/// signed by one of Google's published keys (``GoogleOIDCKeys``), `iss` Google's, `aud` the push subscription's
/// audience, `email` its service account with `email_verified` true, `exp` not passed and `iat` not in the future
/// (each with ``skew`` of clock skew). Claims are checked before the signature, so a token that would fail anyway
/// never makes the keys be fetched.
package struct GoogleOIDCVerifier: Sendable {
    /// Why a token was not accepted.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The token is missing, malformed, forged or for someone else: 401.
        case token(String)
        /// Google's keys cannot be fetched now: 503, so Pub/Sub retries.
        case keysUnavailable(String)

        /// The cause in words (never the token).
        package var description: String {
            switch self {
            case .token(let why): "OIDC token refused: \(why)"
            case .keysUnavailable(let why): "cannot fetch Google's OIDC keys: \(why)"
            }
        }
    }

    /// The issuers Google's ID tokens carry.
    package static let issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]
    /// Clock skew allowed on `exp` and `iat`.
    package static let skew: Duration = .seconds(60)

    /// The `aud` required (`GOOGLE_PUBSUB_AUDIENCE`).
    package let audience: String
    /// The `email` required (`GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL`).
    package let email: String
    private let keys: GoogleOIDCKeys

    /// Creates a verifier taking tokens for `audience` from `email`, signed by one of `keys`.
    package init(audience: String, email: String, keys: GoogleOIDCKeys) {
        self.audience = audience
        self.email = email
        self.keys = keys
    }

    /// Checks the `Authorization` header's token at `now`; throws why it is refused.
    package func verify(authorization: String?, now: Date = Date()) async throws(Failure) {
        let token = try Self.Token(authorization: authorization)
        try Self.check(claims: token.claims, audience: audience, email: email, now: now)
        guard let key = try await keys.key(id: token.keyID) else {
            throw .token("signed by a key Google does not publish (kid \(token.keyID.prefix(64)))")
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
        guard key.isValidSignature(signature, for: Data(token.signingInput.utf8), padding: .insecurePKCS1v1_5) else {
            throw .token("signature does not verify")
        }
    }

    /// The claim rules, on a token's decoded claims: issuer, audience, service account, expiry, issue time.
    package static func check(claims: [String: Any], audience: String, email: String, now: Date) throws(Failure) {
        guard let issuer = claims["iss"] as? String, issuers.contains(issuer) else {
            throw .token("iss is not Google's")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard audiences.contains(audience) else { throw .token("aud is not GOOGLE_PUBSUB_AUDIENCE") }
        guard claims["email"] as? String == email else {
            throw .token("email is not GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL")
        }
        // A JSON true (Google's) or "true"; never a number.
        let verified = claims["email_verified"]
        let isTrue =
            (verified as? NSNumber).map { FlexibleJSON.isBoolean($0) && $0.boolValue }
            ?? (verified as? String == "true")
        guard isTrue else {
            throw .token("email_verified is not true")
        }
        let skew = Double(Self.skew.components.seconds)
        guard let expires = FlexibleJSON.integer(claims["exp"]) else { throw .token("exp is missing") }
        guard now.timeIntervalSince1970 <= Double(expires) + skew else { throw .token("token expired") }
        guard let issued = FlexibleJSON.integer(claims["iat"]) else { throw .token("iat is missing") }
        guard Double(issued) <= now.timeIntervalSince1970 + skew else { throw .token("iat is in the future") }
    }

    /// A JWT's parts, decoded (nothing checked yet but its shape and `alg`).
    struct Token {
        /// The header's `kid`.
        var keyID: String
        /// The decoded claims.
        var claims: [String: Any]
        /// `header.claims`, what the signature covers.
        var signingInput: String
        /// The signature's bytes.
        var signature: Data

        /// Reads `Bearer <JWT>`; throws `.token` for a missing header or anything but a compact RS256 JWT with a kid.
        init(authorization: String?) throws(Failure) {
            guard let authorization, authorization.count > 7,
                authorization.prefix(7).lowercased() == "bearer "
            else { throw .token("no Authorization: Bearer header") }
            let jwt = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
                let claimsData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
                let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
                let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
            else { throw .token("not a JWT") }
            guard header["alg"] as? String == "RS256" else { throw .token("alg is not RS256") }
            guard let kid = header["kid"] as? String, !kid.isEmpty else { throw .token("no kid") }
            keyID = kid
            self.claims = claims
            signingInput = String(parts[0]) + "." + String(parts[1])
            self.signature = signature
        }
    }
}
