import FakeAppStore
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stand-in's side of App Store Server Notifications: Send Consumption Information v2 (recorded, scriptable),
/// Get Notification History (from what it sent, filtered and paged), and `POST /fake/notifications`.
@Suite struct NotificationStandInTests {
    let key = ServerAPITestKey.generate()

    var configuration: AppStoreStandIn.Configuration {
        AppStoreStandIn.Configuration(serverAPIKey: key.publicKey)
    }

    private static let consented = Data(
        #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#.utf8
    )

    /// One request with a bearer token (or none) and a JSON body; the status and body.
    private func call(
        _ method: String,
        _ url: String,
        bearer: String?,
        json: Data
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = json
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (try #require(response as? HTTPURLResponse).statusCode, data)
    }

    private func object(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    @Test func consumptionInformationIsAcceptedAndRecorded() async throws {
        try await StandInClient.with(configuration) { client in
            let standIn = client.standIn
            let production = try await call(
                "PUT",
                standIn.serverAPIURL + "/inApps/v2/transactions/consumption/42",
                bearer: key.bearerToken(),
                json: Self.consented
            )
            #expect(production.status == 202 && production.body.isEmpty)
            let sandbox = try await call(
                "PUT",
                standIn.serverAPISandboxURL + "/inApps/v2/transactions/consumption/43",
                bearer: key.bearerToken(),
                json: Self.consented
            )
            #expect(sandbox.status == 202)
            // Without consent Apple refuses the body; without a valid token, the call.
            let refused = try await call(
                "PUT",
                standIn.serverAPIURL + "/inApps/v2/transactions/consumption/44",
                bearer: key.bearerToken(),
                json: Data(
                    #"{"customerConsented":false,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#.utf8
                )
            )
            #expect(refused.status == 400 && object(refused.body)["errorCode"] as? Int == 4_000_000)
            let unauthorized = try await call(
                "PUT",
                standIn.serverAPIURL + "/inApps/v2/transactions/consumption/45",
                bearer: "nope",
                json: Self.consented
            )
            #expect(unauthorized.status == 401)
            let recorded = standIn.recordedConsumptionRequests()
            #expect(recorded.map(\.transactionID) == ["42", "43", "44", "45"])
            #expect(recorded.map(\.environment) == [.production, .sandbox, .production, .production])
            #expect(recorded.map(\.httpStatus) == [202, 202, 400, 401])
            #expect(recorded[0].fields["deliveryStatus"] as? String == "DELIVERED")
            #expect(recorded[3].bearerFailure != nil && recorded[0].bearerFailure == nil)
        }
    }

    @Test func consumptionFailuresAreScriptable() async throws {
        try await StandInClient.with(configuration) { client in
            // Through the control endpoint, as another process would.
            let scripted = try await client.post(
                "/fake/consumption-script",
                json: Data(#"{"script":[{"http":500},{"error_code":4290000,"retry_after":"1"}]}"#.utf8)
            )
            #expect(scripted.status == 204)
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(
                    try await call(
                        "PUT",
                        client.standIn.serverAPIURL + "/inApps/v2/transactions/consumption/50",
                        bearer: key.bearerToken(),
                        json: Self.consented
                    ).status
                )
            }
            #expect(statuses == [500, 429, 202])
        }
    }

    @Test func notificationHistoryListsWhatWasSentInTheWindowAPageAtATime() async throws {
        try await StandInClient.with(configuration) { client in
            let standIn = client.standIn
            let now = SignedTransactionPayload.nowMilliseconds()
            var production: [String] = []
            for index in 0..<25 {
                let sent = try await standIn.sendNotification(
                    ServerAPINotificationOrder(
                        notificationType: "REFUND",
                        transaction: SignedTransactionPayload(transactionId: "\(100 + index)", productId: "gems"),
                        signedDate: now - 1000 + Int64(index),
                        deliver: false
                    )
                )
                production.append(sent.signedPayload)
            }
            // Outside the window, and in the other environment.
            _ = try await standIn.sendNotification(
                ServerAPINotificationOrder(notificationType: "TEST", signedDate: now - 10_000_000, deliver: false)
            )
            _ = try await standIn.sendNotification(
                ServerAPINotificationOrder(
                    notificationType: "TEST",
                    environment: "Sandbox",
                    signedDate: now - 500,
                    deliver: false
                )
            )
            let window = Data(#"{"startDate":\#(now - 5_000_000),"endDate":\#(now + 1)}"#.utf8)
            let url = standIn.serverAPIURL + "/inApps/v1/notifications/history"
            let first = object(try await call("POST", url, bearer: key.bearerToken(), json: window).body)
            #expect(first["hasMore"] as? Bool == true)
            let token = try #require(first["paginationToken"] as? String)
            let second = object(
                try await call("POST", url + "?paginationToken=" + token, bearer: key.bearerToken(), json: window)
                    .body
            )
            #expect(second["hasMore"] as? Bool == false && second["paginationToken"] == nil)
            let records =
                (first["notificationHistory"] as? [[String: Any]] ?? [])
                + (second["notificationHistory"] as? [[String: Any]] ?? [])
            #expect(records.compactMap { $0["signedPayload"] as? String } == production)
            #expect(records.allSatisfy { ($0["sendAttempts"] as? [Any])?.isEmpty == true })
            let sandbox = object(
                try await call(
                    "POST",
                    standIn.serverAPISandboxURL + "/inApps/v1/notifications/history",
                    bearer: key.bearerToken(),
                    json: window
                ).body
            )
            #expect((sandbox["notificationHistory"] as? [Any])?.count == 1)
            // Further back than Apple keeps, and an inverted window, are bad requests.
            let tooOld = Data(#"{"startDate":\#(now - 181 * 86_400_000),"endDate":\#(now)}"#.utf8)
            #expect(try await call("POST", url, bearer: key.bearerToken(), json: tooOld).status == 400)
            let inverted = Data(#"{"startDate":\#(now),"endDate":\#(now - 1)}"#.utf8)
            #expect(try await call("POST", url, bearer: key.bearerToken(), json: inverted).status == 400)
            #expect(try await call("POST", url, bearer: nil, json: window).status == 401)
            let queries = standIn.recordedNotificationHistoryQueries()
            #expect(queries.map(\.httpStatus) == [200, 200, 200, 400, 400, 401])
            #expect(queries[1].paginationToken == token && queries[0].startDate == now - 5_000_000)
        }
    }

    @Test func aNotificationIsSignedRememberedAndPostedToItsURL() async throws {
        try await StandInClient.with(configuration) { client in
            // The stand-in itself is the target here: it answers 404 for a path it does not serve.
            let answer = try await client.post(
                "/fake/notifications",
                json: Data(
                    """
                    {"notificationType":"REFUND","subtype":"x","transaction":{"transactionId":"42","productId":"gems",\
                    "appAccountToken":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","revocationDate":1700000000000,\
                    "revocationReason":1,"quantity":3},"url":"\(client.base)/notifications/apple"}
                    """.utf8
                )
            )
            #expect(answer.status == 200)
            let result = try JSONDecoder().decode(NotificationSendResult.self, from: answer.body)
            #expect(result.delivered && result.httpStatus == 404 && result.error == nil)
            let jws = try CompactJWS(result.signedPayload)
            #expect(try jws.isSigned(by: client.standIn.testChain.leaf))
            let payload = object(jws.payload)
            #expect(payload["notificationType"] as? String == "REFUND" && payload["subtype"] as? String == "x")
            #expect(payload["notificationUUID"] as? String == result.notificationUUID)
            let data = try #require(payload["data"] as? [String: Any])
            #expect(data["environment"] as? String == "Production" && data["bundleId"] as? String == "com.example.game")
            let transaction = object(try CompactJWS(try #require(data["signedTransactionInfo"] as? String)).payload)
            #expect(transaction["transactionId"] as? String == "42" && transaction["quantity"] as? Int == 3)
            #expect(
                transaction["revocationReason"] as? Int == 1
                    && transaction["revocationDate"] as? Int == 1_700_000_000_000
            )
            #expect(transaction["appAccountToken"] as? String == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
            let sent = try #require(client.standIn.sentNotifications().first)
            #expect(sent.notificationUUID == result.notificationUUID && sent.httpStatus == 404)
            #expect(sent.url == "\(client.base)/notifications/apple")

            // Not delivered: in the history only. Delivered without a URL: refused.
            let kept = try await client.post(
                "/fake/notifications",
                json: Data(#"{"notificationType":"TEST","deliver":false}"#.utf8)
            )
            #expect(kept.status == 200 && kept.json["delivered"] as? Bool == false && kept.json["httpStatus"] == nil)
            #expect(client.standIn.sentNotifications().count == 2)
            let refused = try await client.post("/fake/notifications", json: Data(#"{"notificationType":"TEST"}"#.utf8))
            #expect(refused.status == 400)
            #expect(try await client.post("/fake/notifications", json: Data("{}".utf8)).status == 400)
        }
    }
}
