import FakeAppStore
import Foundation
import Testing

@testable import ReceiptdCore

/// The OIDC claim rules, the JWT's shape and the JWKS cache's `Cache-Control` rule, without I/O.
@Suite struct GoogleOIDCVerifierTests {
    static let audience = "https://receiptd.test/notifications/google"
    static let email = "push@project.iam.gserviceaccount.com"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// Claims that pass, with `changes` applied (`NSNull` removes one).
    static func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://accounts.google.com", "aud": audience, "email": email, "email_verified": true,
            "iat": Int64(now.timeIntervalSince1970) - 10, "exp": Int64(now.timeIntervalSince1970) + 3590,
        ]
        for (key, value) in changes {
            claims[key] = value is NSNull ? nil : value
        }
        return claims
    }

    /// Why `claims` are refused, or nil when they pass.
    static func refusal(_ claims: [String: Any]) -> String? {
        do {
            try GoogleOIDCVerifier.check(claims: claims, audience: audience, email: email, now: now)
            return nil
        } catch {
            guard case .token(let why) = error else { return "not a token refusal: \(error)" }
            return why
        }
    }

    @Test func validClaimsPass() {
        #expect(Self.refusal(Self.claims()) == nil)
        #expect(Self.refusal(Self.claims(["iss": "accounts.google.com"])) == nil)
        #expect(Self.refusal(Self.claims(["aud": [Self.audience]])) == nil)
    }

    @Test func eachRuleRefuses() {
        let t = Int64(Self.now.timeIntervalSince1970)
        let cases: [([String: Any], String)] = [
            (["iss": "https://evil.test"], "iss"),
            (["iss": NSNull()], "iss"),
            (["aud": "https://elsewhere.test"], "aud"),
            (["aud": NSNull()], "aud"),
            (["email": "other@project.iam.gserviceaccount.com"], "email is"),
            (["email": NSNull()], "email is"),
            (["email_verified": false], "email_verified"),
            (["email_verified": NSNull()], "email_verified"),
            (["email_verified": 1], "email_verified"),
            (["exp": t - 61], "expired"),
            (["exp": NSNull()], "exp is missing"),
            (["iat": t + 61], "future"),
            (["iat": NSNull()], "iat is missing"),
        ]
        for (changes, expected) in cases {
            let why = Self.refusal(Self.claims(changes))
            #expect(why?.contains(expected) == true, "\(changes): \(why ?? "passed")")
        }
    }

    @Test func aMinuteOfSkewIsAllowed() {
        let t = Int64(Self.now.timeIntervalSince1970)
        #expect(Self.refusal(Self.claims(["exp": t - 60])) == nil)
        #expect(Self.refusal(Self.claims(["iat": t + 60])) == nil)
        #expect(Self.refusal(Self.claims(["email_verified": "true"])) == nil)
    }

    @Test func onlyACompactRS256JWTWithAKidIsRead() throws {
        let issuer = GoogleOIDCIssuer()
        let token = issuer.token(audience: Self.audience)
        let parsed = try GoogleOIDCVerifier.Token(authorization: "Bearer " + token)
        #expect(parsed.keyID == issuer.currentKeyID)
        #expect(parsed.claims["aud"] as? String == Self.audience)
        #expect(parsed.signingInput == token.split(separator: ".").prefix(2).joined(separator: "."))
        #expect(try GoogleOIDCVerifier.Token(authorization: "bearer " + token).keyID == issuer.currentKeyID)

        let parts = token.split(separator: ".").map(String.init)
        let none = Base64URL.encode(Data(#"{"alg":"none","kid":"k"}"#.utf8))
        let hs256 = Base64URL.encode(Data(#"{"alg":"HS256","kid":"k"}"#.utf8))
        let noKid = Base64URL.encode(Data(#"{"alg":"RS256"}"#.utf8))
        for bad in [
            nil, "", "Bearer", "Bearer ", "Basic " + token, "Bearer " + parts[0] + "." + parts[1],
            "Bearer \(none).\(parts[1]).\(parts[2])", "Bearer \(hs256).\(parts[1]).\(parts[2])",
            "Bearer \(noKid).\(parts[1]).\(parts[2])", "Bearer a.b.c",
        ] {
            #expect(throws: GoogleOIDCVerifier.Failure.self, "\(bad ?? "nil")") {
                try GoogleOIDCVerifier.Token(authorization: bad)
            }
        }
    }

    @Test func cacheControlGivesHowLongKeysAreKept() {
        #expect(GoogleOIDCKeys.maxAge(cacheControl: nil) == nil)
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "public") == nil)
        #expect(
            GoogleOIDCKeys.maxAge(cacheControl: "public, max-age=19800, must-revalidate, no-transform")
                == .seconds(19800)
        )
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "Max-Age = 60") == .seconds(60))
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "s-maxage=600") == nil)
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "max-age=\"120\"") == .seconds(120))
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "max-age=soon") == nil)
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "max-age=600, no-cache") == .zero)
        #expect(GoogleOIDCKeys.maxAge(cacheControl: "no-store") == .zero)
    }

    @Test func theJWKSKeepsOnlyRS256SigningKeys() throws {
        let issuer = GoogleOIDCIssuer()
        let keys = try GoogleOIDCKeys.parse(jwks: Data(issuer.jwksJSON.utf8))
        #expect(Array(keys.keys) == [issuer.currentKeyID])
        // The key verifies what the issuer signs, over PKCS#1 v1.5 with SHA-256.
        let token = try GoogleOIDCVerifier.Token(authorization: "Bearer " + issuer.token(audience: Self.audience))
        let key = try #require(keys[token.keyID])
        #expect(
            key.isValidSignature(
                .init(rawRepresentation: token.signature),
                for: Data(token.signingInput.utf8),
                padding: .insecurePKCS1v1_5
            )
        )
        #expect(throws: (any Error).self) { try GoogleOIDCKeys.parse(jwks: Data(#"{"keys":[]}"#.utf8)) }
        #expect(throws: (any Error).self) {
            try GoogleOIDCKeys.parse(jwks: Data(#"{"keys":[{"kty":"EC","kid":"e","crv":"P-256"}]}"#.utf8))
        }
        #expect(throws: (any Error).self) { try GoogleOIDCKeys.parse(jwks: Data("[]".utf8)) }
    }
}
