import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 15 left it (an event with the id its trigger wrote, an unconfirmed
    /// provisional grant whose job still runs) upgrades to migration 18: both kept, a new event takes its id from the
    /// column's default in the same shape, and the grant can be handed back (`provisional_cancelled`).
    @Test func aDatabaseAtMigrationFifteenUpgradesWithItsEventsAndGrants() async throws {
        let database = try await Self.database(migratedTo: 15)
        let oldID = "msg_0123456789abcdef0123456789abcdef"
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status)
                VALUES ('o-provisional', 'u1', 'gems', 1, now(), 'verified')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, state, attempts, last_error,
                                      submitted_by)
                VALUES ('o-provisional', 'receipt', 'QUJD', 'sha-1', 'pending', 3, 'http: HTTP 503', 'u1')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, job_id, cause)
                SELECT 'o-provisional', 'u1', 'apple', 'gems', 1, id, 'store_failing' FROM iap.jobs
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
                VALUES ($1, 'order.verified', 'o-provisional', 'u1', '{"provisional": true}')
                """,
                [oldID]
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await f.value("SELECT string_agg(id, ',') FROM iap.webhook_events") == oldID)
            #expect(try await f.value("SELECT state FROM iap.provisional_grants") == "unconfirmed")
            // An event written without an id takes the default, in the shape the triggers wrote.
            try await f.connection.execute(
                """
                INSERT INTO iap.webhook_events (type, order_id, user_id, payload)
                VALUES ('order.failed', 'o-provisional', 'u1', '{}'), ('order.failed', 'o-provisional', 'u1', '{}')
                """
            )
            #expect(
                try await f.value(
                    """
                    SELECT count(DISTINCT id) FROM iap.webhook_events
                    WHERE id ~ '^msg_[0-9a-f]{32}$' AND id <> $1
                    """,
                    [oldID]
                ) == "2"
            )
            // The old grant is handed back when an operator cancels its job; no unknown state is accepted.
            #expect(try await f.value("SELECT iap.cancel_order('o-provisional')") == "1")
            #expect(
                try await f.value("SELECT revocation_reason FROM iap.owed_revocations('u1')") == "provisional_cancelled"
            )
            await #expect(throws: PostgresError.self) {
                try await f.connection.execute("UPDATE iap.provisional_grants SET state = 'forgotten'")
            }
        }
    }
}
