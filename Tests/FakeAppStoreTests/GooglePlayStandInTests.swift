import _CryptoExtras
import FakeAppStore
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stand-in Google Play on its own: the token endpoint refuses assertions not made with its key or not for
/// it, the API wants an access token it issued, and acknowledge, consume and voided purchases behave like Google's.
@Suite struct GooglePlayStandInTests {
    private static func withStandIn(_ body: (GooglePlayStandIn) async throws -> Void) async throws {
        let standIn = try GooglePlayStandIn()
        _ = try await standIn.start()
        do {
            try await body(standIn)
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    private static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func assertion(key: _RSA.Signing.PrivateKey, issuer: String, audience: String, lifetime: Int64 = 3600) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT"])
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": issuer, "scope": "https://www.googleapis.com/auth/androidpublisher", "aud": audience, "iat": now, "exp": now + lifetime,
        ] as [String: Any])
        let input = base64url(header) + "." + base64url(claims)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + base64url(signature.rawRepresentation)
    }

    private static func send(_ url: String, method: String = "GET", form: String? = nil, bearer: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let form {
            request.httpBody = Data(form.utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    private static func grant(_ standIn: GooglePlayStandIn, _ assertion: String) async throws -> (Int, [String: Any]) {
        try await send(standIn.tokenURL, method: "POST",
                       form: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)")
    }

    @Test func theTokenEndpointAcceptsOnlyItsOwnServiceAccountsAssertions() async throws {
        try await Self.withStandIn { standIn in
            let key = standIn.serviceAccount.privateKey
            let email = standIn.serviceAccount.clientEmail
            let (ok, granted) = try await Self.grant(standIn, try Self.assertion(key: key, issuer: email, audience: standIn.tokenURL))
            #expect(ok == 200 && (granted["access_token"] as? String)?.isEmpty == false && granted["expires_in"] as? Int == 3600)
            let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            for (label, assertion, reason) in [
                ("another key", try Self.assertion(key: otherKey, issuer: email, audience: standIn.tokenURL), "bad signature"),
                ("another audience", try Self.assertion(key: key, issuer: email, audience: "https://oauth2.googleapis.com/token"), "aud"),
                ("another issuer", try Self.assertion(key: key, issuer: "x@y", audience: standIn.tokenURL), "iss"),
                ("two hours", try Self.assertion(key: key, issuer: email, audience: standIn.tokenURL, lifetime: 7200), "an hour"),
            ] {
                let (status, refused) = try await Self.grant(standIn, assertion)
                #expect(status == 400 && refused["error"] as? String == "invalid_grant", "\(label)")
                #expect((refused["error_description"] as? String)?.contains(reason) == true, "\(label)")
            }
            #expect(standIn.recordedTokenRequests().filter(\.accepted).count == 1)

            // The API wants that access token; a revoked one is refused.
            let token = try #require(granted["access_token"] as? String)
            let purchase = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1", quantity: 3, accountID: "a1")
            let url = standIn.baseURL + "/androidpublisher/v3/applications/com.example.game/purchases/products/gems/tokens/" + purchase.encoded()
            #expect(try await Self.send(url).0 == 401)
            let (found, fields) = try await Self.send(url, bearer: token)
            #expect(found == 200 && fields["orderId"] as? String == "GPA.1" && fields["quantity"] as? Int == 3)
            #expect(fields["obfuscatedExternalAccountId"] as? String == "a1" && fields["acknowledgementState"] as? Int == 0)
            #expect(fields["purchaseTimeMillis"] is String)
            let otherPackage = url.replacingOccurrences(of: "com.example.game", with: "com.other.app")
            #expect(try await Self.send(otherPackage, bearer: token).0 == 403)

            // Acknowledged once, then reported so; a pending purchase cannot be acknowledged.
            #expect(try await Self.send(url + ":acknowledge", method: "POST", bearer: token).0 == 200)
            #expect(try await Self.send(url, bearer: token).1["acknowledgementState"] as? Int == 1)
            let pending = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.2", state: 2)
            let pendingURL = url.replacingOccurrences(of: purchase.encoded(), with: pending.encoded())
            #expect(try await Self.send(pendingURL + ":acknowledge", method: "POST", bearer: token).0 == 400)
            #expect(standIn.recordedFinalizations().map(\.httpStatus) == [200, 400])

            // Voided purchases from a start time, paged.
            standIn.void(token: purchase.encoded(), orderID: "GPA.1", reason: 1, at: Date(timeIntervalSince1970: 1000))
            standIn.void(token: "t2", orderID: "GPA.2", reason: 7)
            let list = standIn.baseURL + "/androidpublisher/v3/applications/com.example.game/purchases/voidedpurchases"
            let (listed, page) = try await Self.send(list + "?startTime=2000000", bearer: token)
            let voided = page["voidedPurchases"] as? [[String: Any]] ?? []
            #expect(listed == 200 && voided.count == 1 && voided.first?["orderId"] as? String == "GPA.2" && voided.first?["voidedReason"] as? Int == 7)

            standIn.revokeAccessTokens()
            #expect(try await Self.send(url, bearer: token).0 == 401)
        }
    }
}
