import Foundation
import ReceiptdCore
import Testing

/// A read's record sets the row's next read from its state, but never over a read that news asked for while the
/// read was under way: the store may have answered before the news, so only a later read can see what it said.
@Suite struct SubscriptionReadRecordTests {
    /// Two active Google Play subscriptions, entitled for 30 days, both due a read.
    private static func seed(_ f: Fixture) async throws {
        try await f.script(
            """
            INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                           expires_at, purchase_token, read_due_at)
            SELECT 'google:GPA.' || i, 'google', 'u' || i, 'monthly', 'active', now() + interval '30 days',
                   now() + interval '30 days', 'token-' || i, now() - interval '1 minute' * i
            FROM generate_series(1, 2) AS i;
            """
        )
    }

    @Test func newsThatAsksAReadDuringAReadKeepsItDue() async throws {
        try await Fixture.with { f in
            try await Self.seed(f)
            let queue = PostgresJobQueue(
                pool: PostgresJobQueue.pool(
                    connectionString: f.database.connectionString,
                    connections: 2,
                    lease: .seconds(60)
                ),
                owner: "record-test",
                planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "com.example")
            )
            let asked = try #require(try await queue.claimSubscriptionRead(lease: .seconds(60), stores: [.google]))
            let quiet = try #require(try await queue.claimSubscriptionRead(lease: .seconds(60), stores: [.google]))
            // News for the first arrives while both reads are under way, and asks for a read, as a Google
            // notification does.
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET read_due_at = now(), read_attempts = 0 WHERE subscription_id = $1",
                [asked.subscriptionID]
            )
            _ = try await queue.recordSubscriptionRead(asked, items: [])
            _ = try await queue.recordSubscriptionRead(quiet, items: [])
            let rows = try await f.connection.execute(
                """
                SELECT subscription_id, read_due_at <= now() AS due, read_leased_until IS NULL AS released,
                       read_due_at = entitled_until AS at_entitlement_end
                FROM iap.subscriptions ORDER BY subscription_id
                """
            ).namedRows
            let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["subscription_id"] ?? "", $0) })
            #expect(byID[asked.subscriptionID]?["due"] == "t")
            #expect(byID[asked.subscriptionID]?["released"] == "t")
            // The read nobody asked for again is next due from the row's state: its entitlement's end.
            #expect(byID[quiet.subscriptionID]?["due"] == "f")
            #expect(byID[quiet.subscriptionID]?["at_entitlement_end"] == "t")
            #expect(byID[quiet.subscriptionID]?["released"] == "t")
            // A claim now takes the asked read again.
            let again = try await queue.claimSubscriptionRead(lease: .seconds(60), stores: [.google])
            #expect(again?.subscriptionID == asked.subscriptionID)
        }
    }
}
