import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// The benchmark's database of a successful game's size (issue #48, item 1) has the shape, and the daemon's
/// subscription re-read finds its due rows there through their index.
@Suite struct SubscriptionSeedTests {
    @Test func theSeedHasTheShapeOfASubscriptionTitle() async throws {
        try await Fixture.with { f in
            let subscriptions = 6_000
            _ = try await SubscriptionSeed.write(
                subscriptions: subscriptions,
                connectionString: f.database.connectionString,
                chunk: 1_000
            )
            // The mix of states, by share.
            let states = try await f.connection.execute(
                "SELECT state, count(*)::float8 / $1 AS share FROM iap.subscriptions GROUP BY state",
                [subscriptions]
            ).namedRows.reduce(into: [String: Double]()) { $0[try $1.string("state")] = Double(try $1.string("share")) }
            let share = { (names: [String]) in names.reduce(0) { $0 + (states[$1] ?? 0) } }
            #expect(abs(share(["active"]) - 0.80) < 0.03, "\(states)")
            #expect(abs(share(["grace_period"]) - 0.04) < 0.015, "\(states)")
            #expect(abs(share(["billing_retry"]) - 0.04) < 0.015, "\(states)")
            #expect(abs(share(["on_hold", "paused"]) - 0.02) < 0.01, "\(states)")
            #expect(abs(share(["expired", "revoked"]) - 0.10) < 0.02, "\(states)")
            let row = try #require(
                try await f.connection.execute(
                    """
                    SELECT (SELECT count(*) FROM iap.subscriptions) AS subscriptions,
                           (SELECT count(*) FROM iap.subscriptions WHERE store = 'google') AS google,
                           (SELECT count(DISTINCT user_id) FROM iap.subscriptions) AS players,
                           (SELECT max(n) FROM (SELECT count(*) AS n FROM iap.subscriptions GROUP BY user_id) c) AS most,
                           (SELECT count(*) FROM iap.deliveries WHERE subscription_id IS NOT NULL) AS periods,
                           -- Every period is one ledger row paying its own order: the checkout's, or its renewal order.
                           (SELECT count(*) FROM iap.deliveries d JOIN iap.subscriptions s USING (subscription_id)
                            JOIN iap.orders o ON o.order_id = d.order_id AND o.user_id = d.user_id
                            JOIN iap.jobs j ON j.id = d.job_id AND j.order_id = d.order_id AND j.state = 'succeeded'
                            WHERE d.period_start IS NOT NULL AND d.period_end > d.period_start AND o.outcome = 'full'
                              AND d.order_id = CASE WHEN d.order_id = s.order_id THEN s.order_id
                                                    ELSE 'renewal:' || d.transaction_id END) AS paid,
                           (SELECT count(*) FROM iap.orders WHERE order_id LIKE 'renewal:%') AS renewals,
                           (SELECT count(*) FROM iap.orders) AS orders,
                           (SELECT count(*) FROM iap.deliveries) AS deliveries,
                           (SELECT count(*) FROM iap.jobs) AS jobs,
                           -- The latest news: the subscription's row is its history's last.
                           (SELECT count(*) FROM iap.subscriptions s
                            CROSS JOIN LATERAL (
                                SELECT h.state, h.entitled_until, h.auto_renew FROM iap.subscription_history h
                                WHERE h.subscription_id = s.subscription_id ORDER BY h.id DESC LIMIT 1) h
                            WHERE (s.state, s.entitled_until, s.auto_renew)
                                  IS NOT DISTINCT FROM (h.state, h.entitled_until, h.auto_renew)) AS current,
                           (SELECT count(*) FROM iap.subscriptions
                            WHERE state IN ('active', 'grace_period') AND (entitled_until <= now() OR read_due_at <> entitled_until))
                               AS unwatched,
                           (SELECT count(DISTINCT user_id) FROM iap.deliveries WHERE product_kind = 'non_consumable') AS owners,
                           (SELECT count(DISTINCT user_id) FROM iap.deliveries WHERE product_kind = 'consumable') AS buyers
                    """
                ).first
            )
            let players = SubscriptionSeed.players(subscriptions: subscriptions)
            #expect(try row.int("subscriptions") == subscriptions)
            #expect(try row.int("players") == players && players == subscriptions / 2)
            #expect(try row.int("most") == 3)
            #expect(abs(Double(try row.int("google")) / Double(subscriptions) - 0.4) < 0.05)
            let periods = try row.int("periods")
            #expect(abs(Double(periods) / Double(subscriptions) - 4) < 0.25, "\(periods) periods")
            #expect(try row.int("paid") == periods)
            #expect(try row.int("renewals") == periods - subscriptions)
            // One order, job and ledger row per period and per one-time purchase, three for one player in five.
            let purchases = 3 * ((players + 4) / 5)
            #expect(try row.int("orders") == periods + purchases)
            #expect(try row.int("deliveries") == periods + purchases)
            #expect(try row.int("jobs") == periods + purchases)
            #expect(try row.int("current") == subscriptions)
            #expect(try row.int("unwatched") == 0)
            #expect(try row.int("owners") == (players + 4) / 5)
            #expect(try row.int("buyers") == (players + 4) / 5)
        }
    }

    /// The subscription re-read's claim (`PostgresJobQueue.subscriptionReadClaimSQL`, read from the code so that
    /// this follows its changes), as the daemons prepare it, walks `subscriptions_read_due` on a seeded title of
    /// 20,000 subscriptions, with a custom plan and a generic one, and never reads the table whole.
    @Test func theReReadsDueQueryFollowsItsIndexOnASeededTitle() async throws {
        try await Fixture.with { f in
            _ = try await SubscriptionSeed.write(subscriptions: 20_000, connectionString: f.database.connectionString)
            for generic in [false, true] {
                let plans = try f.plans(
                    of: [
                        "PREPARE due AS " + PostgresJobQueue.subscriptionReadClaimSQL,
                        "EXECUTE due(30, '[\"apple\", \"google\"]')",
                    ],
                    generic: generic
                )
                #expect(plans.contains("Index Scan using subscriptions_read_due"), "generic: \(generic): \(plans)")
                #expect(!Fixture.sequentiallyScanned(plans).contains("subscriptions"), "\(plans)")
            }
        }
    }
}
