import Foundation
import ReceiptdCore
import Testing

@testable import ReceiptdTools

/// The renewal ceiling (issue #48, item 7) runs the daemon's own renewal statements through pgbench: on a seeded
/// title, each store's script writes the periods it claims, pays their renewal orders and brings their subscriptions
/// up to date, as the daemon's notification, re-read and settle paths do.
@Suite struct RenewalCeilingTests {
    /// Every `$n` of the daemon's statements became a value or a pgbench variable.
    @Test func theScriptsBindEveryParameter() throws {
        for store in Store.allCases {
            for (step, script) in RenewalCeiling.scripts(store) {
                #expect(script.text.range(of: #"\$[0-9]"#, options: .regularExpression) == nil, "\(store) \(step)")
            }
        }
        #expect(RenewalCeiling.scripts(.google).map(\.0) == [.intake, .pass, .read, .settle])
        #expect(RenewalCeiling.scripts(.apple).map(\.0) == [.intake, .pass, .settle])
    }

    @Test(arguments: Store.allCases)
    func theScriptWritesThePeriodsItClaims(store: Store) async throws {
        try await Fixture.with { f in
            _ = try await SubscriptionSeed.write(
                subscriptions: 600,
                connectionString: f.database.connectionString,
                chunk: 300
            )
            let lastJob = try #require(try await f.connection.execute("SELECT max(id) AS n FROM iap.jobs").first)
                .int("n")
            let rate = try await RenewalCeiling.renewalsPerSecond(
                store,
                postgres: f.database.cluster,
                database: f.database.name,
                clients: 2,
                seconds: 4
            )
            #expect(rate > 0)
            let result: NotificationResult = store == .apple ? .periodEnqueued : .subscriptionUpdated
            let row = try #require(
                try await f.connection.execute(
                    """
                    WITH delivered AS (
                        SELECT d.* FROM iap.deliveries d JOIN iap.jobs j ON j.id = d.job_id
                        WHERE j.id > $1 AND j.state = 'succeeded')
                    SELECT (SELECT count(*) FROM delivered) AS delivered,
                           (SELECT count(*) FROM iap.jobs WHERE id > $1 AND state = 'succeeded') AS succeeded,
                           -- Each a renewal of a seeded subscription of the store, paying its own order in full.
                           (SELECT count(*) FROM delivered d JOIN iap.orders o ON o.order_id = d.order_id
                            JOIN iap.subscriptions s ON s.subscription_id = d.subscription_id
                            WHERE d.order_id = 'renewal:' || d.transaction_id AND d.store = $2 AND s.store = $2
                              AND o.user_id = s.user_id AND d.user_id = s.user_id AND o.outcome = 'full'
                              AND d.product_kind = 'auto_renewable' AND d.period_end > d.period_start) AS paid,
                           -- Its subscription brought up to date: entitled at least to the period's end, and the
                           -- history holding that entitlement (or a later period's, when one renewed it again).
                           (SELECT count(*) FROM delivered d JOIN iap.subscriptions s USING (subscription_id)
                            WHERE s.state = 'active' AND s.entitled_until >= d.period_end
                              AND s.expires_at >= d.period_end AND s.entitled_until > now() + interval '29 days'
                              AND EXISTS (SELECT 1 FROM iap.subscription_history h
                                          WHERE h.subscription_id = s.subscription_id
                                            AND h.entitled_until >= d.period_end)) AS current,
                           -- Its notification recorded, and an App Store one processed as the daemon records such
                           -- news (a Google period is the re-read's, which an earlier notification of the same
                           -- subscription may have asked for).
                           (SELECT count(*) FROM delivered d JOIN iap.store_notifications n
                              ON n.notification_id = 'ceiling-' || d.transaction_id AND n.store = $2
                            WHERE $2 = 'google' OR n.processed_at IS NOT NULL AND n.result = $3) AS notified,
                           (SELECT count(*) FROM iap.store_notifications WHERE result = $3) AS processed,
                           -- Nothing left for a daemon: no job, notification or re-read of the run.
                           (SELECT count(*) FROM iap.jobs WHERE id > $1 AND state IN ('pending', 'running')) AS jobs,
                           (SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL) AS waiting,
                           (SELECT count(*) FROM iap.subscriptions WHERE read_leased_until IS NOT NULL) AS leased,
                           to_regclass('public.ceiling_periods') IS NULL AS dropped
                    """,
                    [lastJob, store.rawValue, result.rawValue]
                ).first
            )
            let delivered = try row.int("delivered")
            #expect(delivered > 0)
            #expect(try row.int("succeeded") == delivered)
            #expect(try row.int("paid") == delivered)
            #expect(try row.int("current") == delivered)
            #expect(try row.int("notified") == delivered)
            #expect(try row.int("processed") >= delivered)
            #expect(try row.int("jobs") == 0)
            #expect(try row.int("waiting") == 0)
            #expect(try row.int("leased") == 0)
            #expect(row["dropped"] == "t")
        }
    }
}
