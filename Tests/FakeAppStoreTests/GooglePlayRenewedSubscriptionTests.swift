import FakeAppStore
import Foundation
import Testing

/// Subscriptions the stand-in did not sell (a seeded database's), registered to be served renewed once more: what
/// `purchases.subscriptionsv2.get` answers of them, for the benchmark's renewal storm.
@Suite struct GooglePlayRenewedSubscriptionTests {
    @Test func aRegisteredTokenIsAnsweredRenewedOnceMore() async throws {
        try await GooglePlayTestClient.with { client in
            let renewed = GoogleRenewedSubscription(
                token: "seeded-token-1",
                productID: "pass_monthly",
                firstOrderID: "GPA.3388-0000000042",
                periodsBefore: 4,
                startMilliseconds: 1_790_000_000_000,
                expiryMilliseconds: 1_800_368_000_000
            )
            #expect(renewed.orderID == "GPA.3388-0000000042..3")
            let url =
                client.standIn.baseURL
                + "/androidpublisher/v3/applications/com.example.game/purchases/subscriptionsv2/tokens/seeded-token-1"
            let before = try await client.send("GET", url, bearer: try await client.accessToken())
            #expect(before.status == 404)
            client.standIn.registerRenewed([renewed])
            let answer = try await client.send("GET", url, bearer: try await client.accessToken())
            #expect(answer.status == 200)
            let json = answer.json
            #expect(json["latestOrderId"] as? String == "GPA.3388-0000000042..3")
            #expect(json["subscriptionState"] as? String == "SUBSCRIPTION_STATE_ACTIVE")
            #expect(json["acknowledgementState"] as? String == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED")
            #expect((json["startTime"] as? String)?.hasPrefix("2026-09-21T") == true, "\(json)")
            let line = try #require((json["lineItems"] as? [[String: Any]])?.first)
            #expect(line["productId"] as? String == "pass_monthly")
            #expect(line["latestSuccessfulOrderId"] as? String == "GPA.3388-0000000042..3")
            #expect((line["expiryTime"] as? String)?.hasPrefix("2027-01-19T") == true, "\(line)")
            #expect((line["autoRenewingPlan"] as? [String: Any])?["autoRenewEnabled"] as? Bool == true)
            #expect(client.standIn.subscriptionReads() == 2)
        }
    }
}
