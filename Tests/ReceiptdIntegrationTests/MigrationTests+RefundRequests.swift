import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 20 left it, with consumption requests in each of the old states,
    /// upgrades to migration 21: each becomes a refund request with its id, Apple's deadline and the state it
    /// was in (one still pending is the policy's to send), the old name still reads them as before, and the game
    /// can answer a new one.
    @Test func aDatabaseAtMigrationTwentyUpgradesItsConsumptionRequestsToRefundRequests() async throws {
        let database = try await Self.database(migratedTo: 20)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('o-1', 'u1', 'gems', 1, 1, 'full')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store)
                VALUES ('7001', 'o-1', 'u1', 'gems', 1, 'Production', 'apple')
                """
            )
            for (index, state) in ["pending", "sent", "not_consented", "failed"].enumerated() {
                try await f.connection.execute(
                    """
                    WITH n AS (
                        INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                            environment, signed_at, source, payload, processed_at, result)
                        VALUES ('apple', 'uuid-' || $1::text, 'CONSUMPTION_REQUEST', '700' || $1::text, 'Production',
                                now() - interval '1 hour', 'push', '{}', now(), 'consumption_requested')
                        RETURNING id, signed_at
                    )
                    INSERT INTO iap.consumption_requests (notification_id, transaction_id, environment, user_id,
                        requested_at, overdue_at, state, sent_at, last_error)
                    SELECT id, '700' || $1::text, 'Production', 'u1', signed_at, signed_at + interval '10 hours', $2,
                           CASE WHEN $2 = 'sent' THEN now() END, CASE WHEN $2 = 'failed' THEN 'HTTP 400' END
                    FROM n
                    """,
                    [index + 1, state]
                )
            }

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            let rows = try await f.connection.execute(
                """
                SELECT request_id, state, answered_by, last_error, order_id,
                       answer_by = signed_at + interval '12 hours' AS deadline
                FROM iap.refund_requests ORDER BY request_id
                """
            ).namedRows
            #expect(rows.map { $0["request_id"] } == ["uuid-1", "uuid-2", "uuid-3", "uuid-4"])
            #expect(rows.map { $0["state"] } == ["answering", "answered", "answered", "failed"])
            #expect(rows.map { $0["answered_by"] } == ["policy", "policy", "policy", nil])
            #expect(rows.map { $0["last_error"] } == [nil, nil, "no consent", "HTTP 400"])
            #expect(rows.map { $0["order_id"] } == ["o-1", nil, nil, nil] && rows.allSatisfy { $0["deadline"] == "t" })
            // The old name reads the rows in the old states.
            #expect(
                try await f.value("SELECT string_agg(state, ',' ORDER BY transaction_id) FROM iap.consumption_requests")
                    == "pending,sent,not_consented,failed"
            )
            // A new request can be answered by the game at once.
            try await f.connection.execute(
                """
                WITH n AS (
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                        environment, signed_at, source, payload, processed_at, result)
                    VALUES ('apple', 'uuid-new', 'CONSUMPTION_REQUEST', '7001', 'Production', now(), 'push', '{}', now(),
                            'consumption_requested')
                    RETURNING id, signed_at
                )
                INSERT INTO iap.refund_requests (notification_id, request_id, transaction_id, environment, user_id,
                    signed_at, answer_by)
                SELECT id, 'uuid-new', '7001', 'Production', 'u1', signed_at, signed_at + interval '12 hours' FROM n
                """
            )
            try await f.connection.execute("SELECT iap.answer_refund_request('uuid-new', 0, 'none')")
            #expect(
                try await f.value("SELECT state FROM iap.refund_requests WHERE request_id = 'uuid-new'") == "answering"
            )
        }
    }
}
