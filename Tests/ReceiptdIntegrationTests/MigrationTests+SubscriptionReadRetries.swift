import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as migration 25 left it, holding a subscription whose re-read a 404 turned off for good, an expired
    /// one refused long ago and one watched as usual, upgrades to migration 29 (issue 47): the one turned off is read
    /// again at once, the others are left as they were, and the failing ones are counted and shown.
    @Test func aDatabaseAtMigrationTwentyFiveUpgradesToSubscriptionReadRetries() async throws {
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.subscriptions (subscription_id, store, user_id, order_id, product_id, state,
                                               entitled_until, expires_at, latest_transaction_id, store_time,
                                               read_due_at, read_error)
                VALUES ('apple:8400', 'apple', 'u1', 'o-8400', 'vip', 'active', now() + interval '1 day',
                        now() + interval '1 day', '8400', now(), NULL, 'App Store Server API: 404 4040010'),
                       ('apple:8500', 'apple', 'u2', 'o-8500', 'vip', 'expired', NULL, now() - interval '90 days',
                        '8500', now(), NULL, 'App Store Server API: 404 4040010'),
                       ('apple:8600', 'apple', 'u3', 'o-8600', 'vip', 'active', now() + interval '2 days',
                        now() + interval '2 days', '8600', now(), now() + interval '2 days', NULL);
                """
            )
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(subscription_id || ':' || coalesce((read_due_at <= now())::text, 'never'), ','
                                      ORDER BY subscription_id)
                    FROM iap.subscriptions
                    """
                ) == "apple:8400:true,apple:8500:never,apple:8600:false"
            )
            // Nothing is failing until a read fails again; then it shows.
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET read_failing_since = now() WHERE subscription_id = 'apple:8400'"
            )
            #expect(try await f.value("SELECT reason FROM iap.stuck_jobs") == "subscription_read_failing")
            #expect(try await OperatorQueries(connection: f.connection).status().subscriptions.failingReads == 1)
        }
    }
}
