import Foundation
import ReceiptdCore
import Testing

/// Issue 48, item 9: a re-read's claim costs the same however many rows before it in `subscriptions_read_due` it
/// may not take. A storm leaves thousands of them at the index's head: rows already read, whose entries stay until
/// a vacuum and are visited again while any older snapshot is open (a long purge, a backup), and rows other
/// daemons hold leased. The daemon's claim starts where its previous claim's row was due.
@Suite struct SubscriptionReadWalkTests {
    /// 50,000 Google Play subscriptions due a re-read a millisecond apart (and 10,000 entitled, not due), the
    /// earliest 10,000 leased by other daemons; due order is not the table's order, as after months of writes.
    static func seed(_ f: Fixture) async throws {
        try await f.script(
            """
            INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                           expires_at, purchase_token, read_due_at, read_leased_until)
            SELECT 'google:GPA.' || i, 'google', 'u' || i, 'monthly', 'active', now() + interval '30 days',
                   now() + interval '30 days', 'token-' || i,
                   CASE WHEN i <= 50000 THEN now() - interval '1 hour' + k * interval '1 millisecond'
                        ELSE now() + interval '30 days' END,
                   CASE WHEN i <= 50000 AND k < 10000 THEN now() + interval '1 hour' END
            FROM generate_series(1, 60000) AS i, LATERAL (SELECT (i * 7919) % 50000 AS k) AS position;
            ANALYZE iap.subscriptions;
            """
        )
    }

    /// Blocks read by one run of `sql` (the claim) with `parameters`, in a transaction rolled back.
    static func blocks(_ f: Fixture, _ sql: String, _ parameters: [any SQLParameter]) async throws -> Int {
        try await f.connection.execute("BEGIN")
        let plan = try await f.value("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, parameters) ?? ""
        try await f.connection.execute("ROLLBACK")
        let top = try #require(
            (try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: Any]])?.first?["Plan"]
                as? [String: Any]
        )
        return (top["Shared Hit Blocks"] as? Int ?? 0) + (top["Shared Read Blocks"] as? Int ?? 0)
    }

    @Test func eachClaimWalksOnlyPastThePreviousOne() async throws {
        try await Fixture.with { f in
            try await Self.seed(f)
            let pool = PostgresJobQueue.pool(
                connectionString: f.database.connectionString,
                connections: 2,
                lease: .seconds(60)
            )
            let queue = PostgresJobQueue(
                pool: pool,
                owner: "walk-test",
                planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "com.example")
            )
            // An old snapshot keeps every entry the reads leave behind alive to the index scans.
            let snapshot = try await f.database.connect()
            try await snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            try await snapshot.execute("SELECT count(*) FROM iap.products")
            let expected = try await f.connection.execute(
                """
                SELECT subscription_id FROM iap.subscriptions WHERE read_due_at <= now() AND read_leased_until IS NULL
                ORDER BY read_due_at LIMIT 500
                """
            ).namedRows.map { $0["subscription_id"] ?? "" }
            var last: OwedSubscriptionRead?
            var read: [String] = []
            for _ in 0..<500 {
                let owed = try #require(
                    try await queue.claimSubscriptionRead(
                        lease: .seconds(60),
                        stores: [.google],
                        after: last?.dueAtMicroseconds
                    )
                )
                read.append(owed.subscriptionID)
                _ = try await queue.recordSubscriptionRead(owed, items: [], earlierPeriods: [])
                last = owed
            }
            // In due order, none leased by another daemon, none twice.
            #expect(read == expected)
            let parameters: [any SQLParameter] = [60.0, #"["google"]"#]
            let after = try #require(last?.dueAtMicroseconds)
            let fromThePoint = try await Self.blocks(
                f,
                PostgresJobQueue.subscriptionReadClaimAfterSQL,
                parameters + [after]
            )
            let fromTheStart = try await Self.blocks(f, PostgresJobQueue.subscriptionReadClaimSQL, parameters)
            // From the start, the claim visits the 10,000 leased rows and the 500 read ones again.
            #expect(fromTheStart > 10_000, "\(fromTheStart) blocks from the start, \(fromThePoint) from the point")
            #expect(fromThePoint < 100, "\(fromThePoint) blocks from the point, \(fromTheStart) from the start")
            try await snapshot.execute("ROLLBACK")
            await snapshot.close()
            await pool.close()
        }
    }
}
