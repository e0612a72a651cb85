import FakeAppStore
import Foundation
import Testing
import _CryptoExtras

/// The stand-in's token endpoint grants access tokens only for assertions its own service account signed for it,
/// and the API takes only live access tokens it granted.
@Suite struct GooglePlayTokenEndpointTests {
    @Test func aCorrectlySignedAssertionGetsAnAccessToken() async throws {
        try await GooglePlayTestClient.with(.init(accessTokenLifetimeSeconds: 1800)) { client in
            let answer = try await client.grant(try client.assertion())
            #expect(answer.status == 200)
            #expect((answer.json["access_token"] as? String)?.isEmpty == false)
            #expect(answer.json["expires_in"] as? Int == 1800 && answer.json["token_type"] as? String == "Bearer")
            #expect(client.standIn.recordedTokenRequests().map(\.accepted) == [true])
        }
    }

    @Test func assertionsNotMadeByTheAccountOrNotForThisEndpointAreRefused() async throws {
        try await GooglePlayTestClient.with { client in
            let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let refused: [(String, String, String)] = [
                ("another key", try client.assertion(key: otherKey), "invalid signature"),
                ("another audience", try client.assertion(audience: "https://oauth2.googleapis.com/token"), "aud"),
                ("another issuer", try client.assertion(issuer: "someone@example.iam.gserviceaccount.com"), "iss"),
                (
                    "another scope", try client.assertion(scope: "https://www.googleapis.com/auth/cloud-platform"),
                    "scope"
                ),
                ("expired", try client.assertion(issuedAt: Date() - 7200), "expired"),
                ("issued later", try client.assertion(issuedAt: Date() + 600), "iat in the future"),
                ("two hours", try client.assertion(lifetime: 7200), "an hour"),
                ("not a JWT", "abc.def", "not a JWT"),
            ]
            for (label, assertion, reason) in refused {
                let answer = try await client.grant(assertion)
                #expect(answer.status == 400 && answer.json["error"] as? String == "invalid_grant", "\(label)")
                #expect(
                    (answer.json["error_description"] as? String)?.contains(reason) == true,
                    "\(label): \(answer.json)"
                )
            }
            let unsupported = try await client.send(
                "POST",
                client.standIn.tokenURL,
                body: "grant_type=password",
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(unsupported.status == 400 && unsupported.json["error"] as? String == "unsupported_grant_type")
            let recorded = client.standIn.recordedTokenRequests()
            #expect(recorded.count == refused.count + 1 && recorded.allSatisfy { !$0.accepted && $0.failure != nil })
        }
    }

    @Test func theAPIWantsALiveAccessTokenItGranted() async throws {
        try await GooglePlayTestClient.with { client in
            let url = client.productURL(SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1").encoded())
            let missing = try await client.send("GET", url)
            #expect(missing.status == 401 && missing.errorStatus == "UNAUTHENTICATED")
            #expect(
                (missing.json["error"] as? [String: Any])?["message"] as? String
                    == "Request had invalid authentication credentials."
            )
            #expect(try await client.send("GET", url, bearer: "ya29.made-up").status == 401)
            let token = try await client.accessToken()
            #expect(try await client.send("GET", url, bearer: token).status == 200)

            client.standIn.revokeAccessTokens()
            #expect(try await client.send("GET", url, bearer: token).status == 401)
            #expect(try await client.send("POST", url + ":acknowledge", bearer: token, body: "{}").status == 401)
            #expect(try await client.send("GET", client.voidedURL("startTime=0"), bearer: token).status == 401)
            #expect(try await client.send("GET", url, bearer: try await client.accessToken()).status == 200)
            #expect(client.standIn.recordedPurchaseQueries().map(\.httpStatus) == [401, 401, 200, 401, 200])
            #expect(
                client.standIn.recordedPurchaseQueries().map { $0.bearerFailure != nil } == [
                    true, true, false, true, false,
                ]
            )
        }
    }

    @Test func anAccessTokenExpires() async throws {
        try await GooglePlayTestClient.with(.init(accessTokenLifetimeSeconds: 0)) { client in
            let url = client.productURL(SyntheticPurchaseToken(productID: "gems").encoded())
            let answer = try await client.send("GET", url, bearer: try await client.accessToken())
            #expect(answer.status == 401)
            #expect(client.standIn.recordedPurchaseQueries().first?.bearerFailure == "expired access token")
        }
    }

    @Test func theKeyFileIsGooglesShapeAndPrivate() async throws {
        try await GooglePlayTestClient.with { client in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
                .path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try client.standIn.writeServiceAccount(toFile: path)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let fields = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                    as? [String: String]
            )
            #expect(fields["type"] == "service_account" && fields["token_uri"] == client.standIn.tokenURL)
            #expect(fields["client_email"] == "receiptd-test@receiptd-test.iam.gserviceaccount.com")
            #expect(
                fields["private_key_id"]?.count == 40 && fields["client_id"] == "1"
                    && fields["project_id"] == "receiptd-test"
            )
            let pem = try #require(fields["private_key"])
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
            #expect(key.publicKey.derRepresentation == client.standIn.serviceAccount.publicKey.derRepresentation)
        }
    }
}
