import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// In order per order under concurrent writers (issue #32): `seq` is taken at insert, so every writer of an order's
/// event first takes the order's row lock. A second transaction writing an event of the order waits until the first
/// commits, and the senders (the SQL `PostgresJobQueue.claimWebhookEvents` runs) never send a later event first.
extension WebhookEventTests {
    /// Order `o1` of `u1` with two ledger rows, `t1` (two units) and `t2`, webhooks on, after `setup`; every event
    /// written so far marked delivered. Returns a sender's queue on a pool of its own (close it).
    static func orderWithTwoRows(_ f: Fixture, setup: String = "") async throws -> (DatabasePool, PostgresJobQueue) {
        try await f.configureWebhooks()
        try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "t1", quantity: 2)
        try await f.connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment)
            VALUES ('t2', 'o1', 'u1', 'gems', 1, 'Production')
            """
        )
        if !setup.isEmpty { try await f.connection.execute(setup) }
        try await f.connection.execute("UPDATE iap.webhook_events SET state = 'delivered', delivered_at = now()")
        let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "test:1:webhooks",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
        )
        return (pool, queue)
    }

    /// Two daemon transactions revoke two ledger rows of one order; the one that wrote first commits last.
    @Test func twoTransactionsWritingEventsOfOneOrderCommitThemInSeqOrder() async throws {
        try await Fixture.with { f in
            // The delivery's own events are sent already: only the revocations are left.
            let (pool, queue) = try await Self.orderWithTwoRows(f)
            func claim() async throws -> [String] {
                var claimed: [String] = []
                for event in try await queue.claimWebhookEvents(limit: 10, lease: .seconds(60)) {
                    claimed.append(
                        try #require(
                            try await f.value(
                                "SELECT payload->>'transaction_id' FROM iap.webhook_events WHERE id = $1",
                                [event.id]
                            )
                        )
                    )
                }
                return claimed
            }

            // Both as the daemon, whose role must be able to take the lock.
            let worker = try await f.loginRole(in: "receiptd_worker")
            let first = try await PostgresConnection.connect(worker)
            let second = try await PostgresConnection.connect(worker)
            let revoke = """
                UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund' WHERE transaction_id = $1
                """
            try await first.execute("BEGIN")
            try await first.execute(revoke, ["t1"])
            let secondCommitted = Task {
                try await second.execute(revoke, ["t2"])
                return ContinuousClock.now
            }
            try await Task.sleep(for: .seconds(1))
            // t1's event is written and not committed: a sender must not take t2's meanwhile.
            let meanwhile = try await claim()
            let firstCommitting = ContinuousClock.now
            try await first.execute("COMMIT")
            let secondAt = try await secondCommitted.value
            #expect(meanwhile == [], "a later event of the order was sent while an earlier one was uncommitted")
            #expect(secondAt > firstCommitting, "the second writer did not wait for the first to commit")
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(payload->>'transaction_id', ',' ORDER BY seq) FROM iap.webhook_events
                    WHERE type = 'delivery.revoked'
                    """
                ) == "t1,t2"
            )
            // Now the first, and the second only once the first is no longer pending.
            #expect(try await claim() == ["t1"])
            #expect(try await claim() == [])
            for connection in [first, second] { await connection.close() }
            await pool.close()
        }
    }
}
