import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 30 left it, with notifications processed and waiting, upgrades to
    /// migration 31's claim indexes (the one on run_at retired): the waiting ones are counted and claimed in Apple's
    /// order, and a transaction's later news only once its earlier one is processed.
    @Test func aDatabaseAtMigrationThirtyUpgradesToTheClaimIndexes() async throws {
        let database = try await Self.database(migratedTo: 30)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                                                     signed_at, source, payload, processed_at, result)
                VALUES ('apple', 'done', 'DID_RENEW', 't0', now() - interval '3 hours', 'push', '{}', now(), 'recorded'),
                       ('apple', 'refund', 'REFUND', 't1', now() - interval '1 hour', 'push', '{}', NULL, NULL),
                       ('apple', 'renew', 'DID_RENEW', 't1', now() - interval '2 hours', 'push', '{}', NULL, NULL),
                       ('apple', 'other', 'DID_RENEW', 't2', now() - interval '90 minutes', 'push', '{}', NULL, NULL);
                """
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes
                    WHERE schemaname = 'iap' AND indexname IN ('store_notifications_claim', 'store_notifications_unprocessed',
                                                               'store_notifications_waiting_transaction')
                    """
                ) == "store_notifications_claim,store_notifications_waiting_transaction"
            )
            // receiptd status counts the waiting without the retired index.
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.unprocessedNotifications == 3, "\(status)")
            let claim = PostgresJobQueue.notificationSQL.claim
            let first = try await f.connection.execute(claim, [10]).namedRows.map { $0["notification_type"] }
            #expect(first == ["DID_RENEW", "DID_RENEW"])
            try await f.connection.execute(
                "UPDATE iap.store_notifications SET processed_at = now() WHERE notification_id IN ('renew', 'other')"
            )
            let then = try await f.connection.execute(claim, [10]).namedRows.map { $0["notification_type"] }
            #expect(then == ["REFUND"])
        }
    }
}
