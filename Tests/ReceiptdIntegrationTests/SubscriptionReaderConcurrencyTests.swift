import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// A daemon reads several due subscriptions at once (issue #48, item 9): one after the other, a storm's re-reads ran
/// at one store round trip each.
@Suite struct SubscriptionReaderConcurrencyTests {
    @Test func dueSubscriptionsAreReadWithoutWaitingForEachOthersAnswers() async throws {
        // Every answer takes a second: read one after the other, six reads reach the store over five seconds at least.
        let slow = GooglePlayStandIn.Configuration(latency: 1_000)
        try await Fixture.withGooglePlayStandIn(slow) { f, google, settings in
            let url = f.database.connectionString
            _ = try await SubscriptionSeed.write(subscriptions: 120, connectionString: url, chunk: 120)
            let appStore = AppStoreStandIn()
            let context = RenewalStorm.Context(connectionString: url, appStore: appStore, googlePlay: google)
            // Six seeded subscriptions the stand-in serves renewed, due for a re-read now.
            let plan = try await GooglePlayRenewalStorm().prepare(renewals: 6, context: context)
            let ids = plan.renewals.map(\.subscriptionID)
            #expect(ids.count == 6)
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET read_due_at = now() WHERE subscription_id = ANY ($1::text[])",
                ["{" + ids.joined(separator: ",") + "}"]
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(60)) {
                    try await f.value(
                        "SELECT count(*) FROM iap.subscriptions WHERE subscription_id = ANY ($1::text[]) AND read_at IS NOT NULL",
                        ["{" + ids.joined(separator: ",") + "}"]
                    ) == "6"
                }
            }
            // The six reads are the store's first subscriptionsv2 calls, and all went out before the first answer.
            let arrivals = google.recordedPurchaseQueries().filter { $0.productID == "subscriptionsv2" }.prefix(6)
                .map(\.receivedAt)
            let span = try #require(arrivals.max()).timeIntervalSince(try #require(arrivals.min()))
            #expect(arrivals.count == 6 && span < 1.0, "six reads reached the store over \(span) s")
        }
    }
}
