import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 25 left it, with a non-consumable delivered by a job that finished long
    /// ago and a failed job nobody names, upgrades to migration 26: the player still owns the non-consumable, the
    /// purge deletes the failed job and keeps the paying one, set aside so that no later pass reads it.
    @Test func aDatabaseAtMigrationTwentyFiveUpgradesToTheLoginIndexAndTheKeptJobs() async throws {
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome, status)
                VALUES ('o-paid', 'u1', 'sword', 1, 1, 'full', 'finished'),
                       ('o-failed', 'u2', 'sword', 1, 0, 'invalid', 'pending');
                INSERT INTO iap.jobs (id, order_id, receipt_data, receipt_sha256, state, attempts, finished_at)
                VALUES (1, 'o-paid', 'QUJD', 'sha-1', 'succeeded', 1, now() - interval '40 days'),
                       (2, 'o-failed', 'QUJE', 'sha-2', 'failed', 1, now() - interval '40 days');
                INSERT INTO iap.attempts (job_id, order_id, attempt, started_at, duration_ms, result)
                VALUES (2, 'o-failed', 1, now() - interval '40 days', 1, 'rejected');
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                                            product_kind, job_id, granted_at)
                VALUES ('7101', 'o-paid', 'u1', 'sword', 1, 'Production', 'apple', 'non_consumable', 1, now());
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
                    WHERE schemaname = 'iap' AND indexname IN ('deliveries_owned', 'jobs_purgeable')
                    """
                ) == "deliveries_owned,jobs_purgeable"
            )
            let owned = try await f.row("SELECT product_id, kind FROM iap.entitlements('u1')")
            #expect(owned["product_id"] == "sword" && owned["kind"] == "non_consumable")
            #expect(try await f.value("SELECT string_agg(kept::text, ',') FROM iap.jobs") == "false,false")

            #expect(try await f.value("SELECT iap.purge_finished(interval '30 days', 100)") == "1")
            #expect(try await f.value("SELECT string_agg(id || ':' || kept, ',') FROM iap.jobs") == "1:true")
            #expect(try await f.value("SELECT count(*) FROM iap.attempts") == "0")
            #expect(try await f.value("SELECT iap.purge_finished(interval '30 days', 100)") == "0")
            #expect(try await f.value("SELECT job_id FROM iap.deliveries") == "1")
        }
    }
}
