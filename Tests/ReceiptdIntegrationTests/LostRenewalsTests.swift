import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// Lost renewals (issue #48, item 5) on a small seeded database: seeded subscriptions of both stores reach the end of
/// their entitlement together with no news; the stand-ins serve them renewed, and the daemons' re-read alone finds
/// every renewal and delivers it once, each to its own `renewal:` order.
@Suite struct LostRenewalsTests {
    @Test func theReReadAloneFindsEveryLostRenewalOfBothStores() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let url = f.database.connectionString
            _ = try await SubscriptionSeed.write(subscriptions: 240, connectionString: url, chunk: 120)
            let context = RenewalStorm.Context(connectionString: url, appStore: f.standIn, googlePlay: google)
            var plans: [Store: RenewalStorm.Plan] = [:]
            for store in [Store.apple, .google] {
                var source = LostRenewalSource(store: store, atLimits: false)
                source.lead = .seconds(3)
                plans[store] = try await source.prepare(renewals: 10, context: context)
            }
            let renewals = plans.values.flatMap(\.renewals)
            #expect(plans[.apple]?.renewals.count == 10 && plans[.google]?.renewals.count == 10)
            #expect(plans.values.allSatisfy { $0.requests.isEmpty }, "no news is posted")
            let rows = String(decoding: try JSONEncoder().encode(renewals), as: UTF8.self)
            // Each subscription, and its latest ledger period, now ends when its re-read is due, in a few seconds.
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, previous_end_ms bigint)
                    JOIN iap.subscriptions s USING (subscription_id)
                    JOIN iap.deliveries d ON d.store = s.store AND d.transaction_id = s.latest_transaction_id
                    WHERE s.entitled_until = to_timestamp(r.previous_end_ms / 1000.0) AND s.read_due_at = s.entitled_until
                      AND d.period_end = s.entitled_until AND s.entitled_until > now()
                    """,
                    [rows]
                ) == "20"
            )
            let delivered = """
                SELECT count(*) FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, transaction_id text,
                                                                        previous_end_ms bigint)
                JOIN iap.deliveries d ON d.transaction_id = r.transaction_id AND d.subscription_id = r.subscription_id
                JOIN iap.subscriptions s ON s.subscription_id = r.subscription_id
                WHERE d.order_id = 'renewal:' || r.transaction_id
                  AND s.entitled_until > to_timestamp(r.previous_end_ms / 1000.0)
                """
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(60)) {
                    try await f.value(delivered, [rows]) == "20"
                }
                try await f.waitUntilSettled()
            }
            // Once each: no other ledger row of these subscriptions ends after the entitlements' end.
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, previous_end_ms bigint)
                    JOIN iap.deliveries d USING (subscription_id)
                    WHERE d.period_end > to_timestamp(r.previous_end_ms / 1000.0)
                    """,
                    [rows]
                ) == "20"
            )
            // Both stores were asked: Get All Subscription Statuses and subscriptionsv2, at least once a renewal each.
            #expect(f.standIn.recordedServerAPIRequests().count >= 10)
            #expect(google.subscriptionReads() >= 10)
            // A later run picks none of them again.
            var again = LostRenewalSource(store: .apple, atLimits: false)
            again.lead = .seconds(3)
            let next = try await again.prepare(renewals: 10, context: context)
            #expect(Set(next.renewals.map(\.subscriptionID)).isDisjoint(with: renewals.map(\.subscriptionID)))
        }
    }
}
