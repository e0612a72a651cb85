import FakeAppStore
import Foundation
import Testing

/// Acknowledge and consume: they change what `products.get` reports, are refused for purchases not purchased,
/// can be made to fail, and are all recorded.
@Suite struct GooglePlayFinalizationTests {
    @Test func acknowledgeIsReportedAndRecorded() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1").encoded()
            let acknowledged = try await client.send(
                "POST",
                client.productURL(token, suffix: ":acknowledge"),
                bearer: bearer,
                body: "{}"
            )
            #expect(acknowledged.status == 200 && String(decoding: acknowledged.body, as: UTF8.self) == "{}")
            let json = try await client.send("GET", client.productURL(token), bearer: bearer).json
            #expect(json["acknowledgementState"] as? Int == 1 && json["consumptionState"] as? Int == 0)
            // Google takes a second acknowledgement too; both are recorded.
            #expect(
                try await client.send("POST", client.productURL(token, suffix: ":acknowledge"), bearer: bearer).status
                    == 200
            )
            let calls = client.standIn.recordedFinalizations()
            #expect(
                calls.map(\.httpStatus) == [200, 200]
                    && calls.allSatisfy { $0.token == token && $0.productID == "gems" }
            )
            #expect(calls.allSatisfy { $0.action == .acknowledge })
        }
    }

    @Test func consumeIsReportedAsConsumedAndAcknowledged() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.2").encoded()
            let consumed = try await client.send("POST", client.productURL(token, suffix: ":consume"), bearer: bearer)
            #expect(consumed.status == 200 && consumed.body.isEmpty)
            let json = try await client.send("GET", client.productURL(token), bearer: bearer).json
            #expect(json["consumptionState"] as? Int == 1 && json["acknowledgementState"] as? Int == 1)
            #expect(client.standIn.recordedFinalizations().map(\.action) == [.consume])
        }
    }

    @Test func onlyAPurchasedPurchaseCanBeAcknowledged() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let pending = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.3", pendingCalls: 1).encoded()
            let early = try await client.send(
                "POST",
                client.productURL(pending, suffix: ":acknowledge"),
                bearer: bearer,
                body: "{}"
            )
            #expect(early.status == 400 && early.errorStatus == "FAILED_PRECONDITION")
            // Once a lookup saw it pending, it is purchased.
            #expect(
                try await client.send("GET", client.productURL(pending), bearer: bearer).json["purchaseState"] as? Int
                    == 2
            )
            #expect(
                try await client.send("POST", client.productURL(pending, suffix: ":acknowledge"), bearer: bearer).status
                    == 200
            )
            let cancelled = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.4", state: 1).encoded()
            #expect(
                try await client.send("POST", client.productURL(cancelled, suffix: ":consume"), bearer: bearer).status
                    == 400
            )
            let unknown = try await client.send(
                "POST",
                client.productURL("real-token", suffix: ":acknowledge"),
                bearer: bearer
            )
            #expect(unknown.status == 404)
            let otherPackage = client.productURL(pending, package: "com.other.app", suffix: ":acknowledge")
            #expect(try await client.send("POST", otherPackage, bearer: bearer).status == 403)
            #expect(client.standIn.recordedFinalizations().map(\.httpStatus) == [400, 200, 400, 404, 403])
        }
    }

    @Test func failuresCanBeScheduled() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.5").encoded()
            client.standIn.failFinalizations(2, status: 500)
            let url = client.productURL(token, suffix: ":acknowledge")
            let first = try await client.send("POST", url, bearer: bearer)
            #expect(first.status == 500 && first.errorStatus == "INTERNAL")
            #expect(try await client.send("POST", url, bearer: bearer).status == 500)
            #expect(
                try await client.send("GET", client.productURL(token), bearer: bearer).json["acknowledgementState"]
                    as? Int == 0
            )
            #expect(try await client.send("POST", url, bearer: bearer).status == 200)
            #expect(client.standIn.recordedFinalizations().map(\.httpStatus) == [500, 500, 200])
        }
    }
}
