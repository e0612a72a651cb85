import FakeAppStore
import Foundation
import Testing

@Suite struct ServerAPITests {
    let key = ServerAPITestKey.generate()

    var configuration: AppStoreStandIn.Configuration {
        AppStoreStandIn.Configuration(serverAPIKey: key.publicKey)
    }

    private func transactionURL(_ standIn: AppStoreStandIn, sandbox: Bool = false, _ id: String) -> String {
        (sandbox ? standIn.serverAPISandboxURL : standIn.serverAPIURL) + "/inApps/v1/transactions/" + id
    }

    @Test func registeredProductionTransactionIsAnsweredSigned() async throws {
        try await StandInClient.with(configuration) { client in
            let payload = SignedTransactionPayload(
                transactionId: "2000000001",
                productId: "coins.100",
                signedDate: 1_000,
                appAccountToken: "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
            )
            client.standIn.register(payload)
            let before = SignedTransactionPayload.nowMilliseconds()
            let answer = try await client.get(transactionURL(client.standIn, "2000000001"), bearer: key.bearerToken())
            #expect(answer.status == 200)
            let jws = try CompactJWS(try #require(answer.json["signedTransactionInfo"] as? String))
            #expect(try jws.isSigned(by: client.standIn.testChain.leaf))
            #expect(
                jws.x5c == [
                    client.standIn.testChain.leafDER, client.standIn.testChain.intermediateDER,
                    client.standIn.testChain.rootDER,
                ]
            )
            var signed = try JSONDecoder().decode(SignedTransactionPayload.self, from: jws.payload)
            #expect(signed.signedDate >= before)
            signed.signedDate = payload.signedDate
            #expect(signed == payload)

            let records = client.standIn.recordedServerAPIRequests()
            #expect(records.count == 1)
            #expect(records.first?.environment == .production)
            #expect(records.first?.transactionID == "2000000001")
            #expect(records.first?.httpStatus == 200)
            #expect(records.first?.bearerFailure == nil)
        }
    }

    @Test func environmentsDoNotShareTransactions() async throws {
        try await StandInClient.with(configuration) { client in
            client.standIn.register(
                SignedTransactionPayload(transactionId: "s1", productId: "p", environment: "Sandbox")
            )
            client.standIn.register(SignedTransactionPayload(transactionId: "p1", productId: "p"))
            let bearer = key.bearerToken()
            let cases: [(id: String, sandbox: Bool, found: Bool)] = [
                ("s1", false, false), ("s1", true, true), ("p1", true, false), ("p1", false, true),
                ("unknown", false, false), ("unknown", true, false),
            ]
            for (id, sandbox, found) in cases {
                let answer = try await client.get(transactionURL(client.standIn, sandbox: sandbox, id), bearer: bearer)
                if found {
                    #expect(answer.status == 200, "\(id) sandbox=\(sandbox)")
                } else {
                    #expect(answer.status == 404, "\(id) sandbox=\(sandbox)")
                    #expect(answer.json["errorCode"] as? Int == 4_040_010)
                    #expect(answer.json["errorMessage"] as? String == "Transaction id not found.")
                }
            }
            let records = client.standIn.recordedServerAPIRequests()
            #expect(
                records.map(\.environment) == [.production, .sandbox, .sandbox, .production, .production, .sandbox]
            )
            #expect(records.map(\.errorCode) == [4_040_010, nil, 4_040_010, nil, 4_040_010, 4_040_010])
        }
    }

    @Test func refusedBearersAreAnswered401AndRecordedWithTheReason() async throws {
        try await StandInClient.with(configuration) { client in
            client.standIn.register(SignedTransactionPayload(transactionId: "t1", productId: "p"))
            let url = transactionURL(client.standIn, "t1")
            let tokens: [(String?, String)] = [
                (nil, "no bearer token"),
                (ServerAPITestKey.generate().bearerToken(), "bad signature"),
                (key.bearerToken(audience: "appstoreconnect-v2"), "aud is not appstoreconnect-v1"),
                (key.bearerToken(keyID: "OTHERKEY"), "kid is not TESTKEY123"),
                (key.bearerToken(issuerID: "someone-else"), "iss is not 57246542-96fe-1a63-e053-0824d011072a"),
                (key.bearerToken(bundleID: "com.example.other"), "bid is not com.example.game"),
                (key.bearerToken(issuedAt: Date() - 3_600, lifetime: 1_200), "expired"),
                (key.bearerToken(issuedAt: Date() + 120), "iat in the future"),
                (key.bearerToken(lifetime: 3_601), "lifetime over an hour"),
                ("not.a-jwt", "malformed token"),
            ]
            for (token, _) in tokens {
                let answer = try await client.get(url, bearer: token)
                #expect(answer.status == 401)
                #expect(answer.body.isEmpty)
            }
            let records = client.standIn.recordedServerAPIRequests()
            #expect(records.map(\.bearerFailure) == tokens.map(\.1))
            #expect(records.allSatisfy { $0.httpStatus == 401 })
            // The refused calls did not count towards the transaction: the next good one is its call 0.
            #expect(try await client.get(url, bearer: key.bearerToken()).status == 200)
        }
    }

    @Test func withoutAKeyAnyBearerIsAccepted() async throws {
        try await StandInClient.with { client async throws in
            client.standIn.register(SignedTransactionPayload(transactionId: "t1", productId: "p"))
            let url = transactionURL(client.standIn, "t1")
            #expect(try await client.get(url, bearer: "anything").status == 200)
            #expect(try await client.get(url, bearer: nil).status == 401)
        }
    }

    @Test func scriptedStepsAnswerInCallOrderAcrossBothEnvironments() async throws {
        try await StandInClient.with(configuration) { client in
            client.standIn.register(
                SignedTransactionPayload(transactionId: "t1", productId: "p"),
                script: [
                    .serverAPIError(4_290_000, retryAfter: "1700000000000"),
                    .serverAPIError(5_000_001),
                    .httpStatus(503),
                    .serverAPIError(4_040_010, http: 500),
                    ScriptStep(delayMilliseconds: 30),
                ]
            )
            let bearer = key.bearerToken()
            let rateLimited = try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer)
            #expect(rateLimited.status == 429)
            #expect(rateLimited.header("Retry-After") == "1700000000000")
            #expect(rateLimited.json["errorCode"] as? Int == 4_290_000)
            #expect(rateLimited.json["errorMessage"] as? String == "Rate limit exceeded.")

            let internalError = try await client.get(
                transactionURL(client.standIn, sandbox: true, "t1"),
                bearer: bearer
            )
            #expect(internalError.status == 500)
            #expect(internalError.json["errorCode"] as? Int == 5_000_001)

            let unavailable = try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer)
            #expect(unavailable.status == 503)
            #expect(unavailable.body.isEmpty)

            let overridden = try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer)
            #expect(overridden.status == 500)
            #expect(overridden.json["errorCode"] as? Int == 4_040_010)

            let started = ContinuousClock.now
            let delayed = try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer)
            #expect(delayed.status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(30))

            #expect(try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer).status == 200)
            #expect(client.standIn.recordedServerAPIRequests().map(\.httpStatus) == [429, 500, 503, 500, 200, 200])
        }
    }

    @Test func scriptedResetClosesTheConnection() async throws {
        try await StandInClient.with(configuration) { client in
            client.standIn.register(SignedTransactionPayload(transactionId: "t1", productId: "p"), script: [.reset])
            await #expect(throws: (any Error).self) {
                _ = try await client.get(transactionURL(client.standIn, "t1"), bearer: key.bearerToken())
            }
            #expect(client.standIn.recordedServerAPIRequests().first?.httpStatus == nil)
        }
    }

    @Test func rateLimitAnswers429BeyondItsShareOfTheSecond() async throws {
        var limited = configuration
        limited.serverAPIRateLimit = 2
        try await StandInClient.with(limited) { client in
            client.standIn.register(SignedTransactionPayload(transactionId: "t1", productId: "p"))
            let bearer = key.bearerToken()
            #expect(try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer).status == 200)
            // The limit spans both environments.
            #expect(
                try await client.get(transactionURL(client.standIn, sandbox: true, "nope"), bearer: bearer).status
                    == 404
            )
            let before = SignedTransactionPayload.nowMilliseconds()
            let refused = try await client.get(transactionURL(client.standIn, "t1"), bearer: bearer)
            #expect(refused.status == 429)
            #expect(refused.json["errorCode"] as? Int == 4_290_000)
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int64($0) })
            #expect((before + 900)...(before + 1_100) ~= retryAfter)
            // Each endpoint has its own limit: Get All Subscription Statuses is still answered.
            let statuses = try await client.get(
                client.standIn.serverAPIURL + "/inApps/v1/subscriptions/nope",
                bearer: bearer
            )
            #expect(statuses.status == 404)
        }
    }

    @Test func otherProcessesRegisterAndSignOverHTTP() async throws {
        try await StandInClient.with(configuration) { client in
            let registration = """
                {"transaction":{"transactionId":"h1","productId":"coins.5","environment":"Sandbox","quantity":3},
                 "script":[{"error_code":4290000,"retry_after":1700000000000}]}
                """
            #expect(try await client.post("/fake/transactions", json: Data(registration.utf8)).status == 204)
            let url = transactionURL(client.standIn, sandbox: true, "h1")
            let first = try await client.get(url, bearer: key.bearerToken())
            #expect(first.status == 429)
            #expect(first.header("retry-after") == "1700000000000")
            let second = try await client.get(url, bearer: key.bearerToken())
            let jws = try CompactJWS(try #require(second.json["signedTransactionInfo"] as? String))
            let payload = try JSONDecoder().decode(SignedTransactionPayload.self, from: jws.payload)
            #expect(payload.quantity == 3)
            #expect(payload.environment == "Sandbox")
            #expect(payload.originalTransactionId == "h1")
            #expect(payload.bundleId == SyntheticReceipt.defaultBundleID)

            let toSign = SignedTransactionPayload(
                transactionId: "m1",
                productId: "coins.5",
                revocationDate: 5,
                revocationReason: 1
            )
            let signed = try await client.post("/fake/sign", json: try JSONEncoder().encode(toSign))
            #expect(signed.status == 200)
            let minted = try CompactJWS(signed.text)
            #expect(try minted.isSigned(by: client.standIn.testChain.leaf))
            #expect(try JSONDecoder().decode(SignedTransactionPayload.self, from: minted.payload) == toSign)

            #expect(try await client.post("/fake/transactions", json: Data("{\"transaction\":{}}".utf8)).status == 400)
            #expect(try await client.post("/fake/sign", json: Data("[]".utf8)).status == 400)
        }
    }

    @Test func verifyReceiptStillAnswersBesideTheServerAPI() async throws {
        try await StandInClient.with(configuration) { client in
            let receipt = SyntheticReceipt().encoded()
            let answer = try await client.post(
                "/verifyReceipt",
                json: try JSONSerialization.data(withJSONObject: ["receipt-data": receipt])
            )
            #expect(answer.json["status"] as? Int == 0)
            #expect(client.standIn.recordedRequests().count == 1)
            #expect(client.standIn.recordedServerAPIRequests().isEmpty)
        }
    }

    @Test func urlsPointAtTheBoundPort() async throws {
        try await StandInClient.with { client in
            #expect(client.standIn.serverAPIURL == client.base)
            #expect(client.standIn.serverAPISandboxURL == client.base + "/sandbox")
        }
    }
}
