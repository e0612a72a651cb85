import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as migration 25 left it, holding a refund answer being sent and one answered, upgrades to
    /// migration 28: neither is marked possibly sent, each keeps its state, and a request may now end `unconfirmed`.
    @Test func aDatabaseAtMigrationTwentyFiveUpgradesToUnconfirmedRefundAnswers() async throws {
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                    environment, signed_at, source, payload, processed_at, result)
                VALUES ('apple', 'n-1', 'CONSUMPTION_REQUEST', '8801', 'Production', now(), 'push', '{}', now(),
                        'consumption_requested'),
                       ('apple', 'n-2', 'CONSUMPTION_REQUEST', '8802', 'Production', now(), 'push', '{}', now(),
                        'consumption_requested');
                INSERT INTO iap.refund_requests (notification_id, request_id, transaction_id, environment, user_id,
                    signed_at, answer_by, state, answered_by, preference)
                SELECT n.id, n.notification_id, n.transaction_id, 'Production', 'u1', now(), now() + interval '12 hours',
                       CASE n.notification_id WHEN 'n-1' THEN 'answering' ELSE 'answered' END,
                       CASE n.notification_id WHEN 'n-1' THEN 'policy' ELSE 'game' END,
                       CASE n.notification_id WHEN 'n-1' THEN 'none' ELSE 'decline' END
                FROM iap.store_notifications n;
                """
            )
            await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    "UPDATE iap.refund_requests SET state = 'unconfirmed' WHERE request_id = 'n-1'"
                )
            }

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(request_id || ':' || state || ':' || (possibly_sent_at IS NULL), ','
                                      ORDER BY request_id)
                    FROM iap.refund_requests
                    """
                ) == "n-1:answering:true,n-2:answered:true"
            )
            try await f.connection.execute(
                "UPDATE iap.refund_requests SET state = 'unconfirmed' WHERE request_id = 'n-1'"
            )
            #expect(
                try await f.value("SELECT state FROM iap.refund_requests WHERE request_id = 'n-1'") == "unconfirmed"
            )
        }
    }
}
