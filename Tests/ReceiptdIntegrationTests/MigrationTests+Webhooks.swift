import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationTwelveUpgradesToWebhooksAndItsLaterChangesWriteEvents() async throws {
        // A database as the receiptd of migration 12 left it: an owed and a granted delivery, a trusted player's
        // order granted provisionally while its job fails, and a payment nobody ordered.
        let database = try await Self.database(migratedTo: 12)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status, outcome,
                                        delivered_quantity, outcome_at)
                VALUES ('o-owed', 'u1', 'gems', 2, now(), 'verified', 'full', 2, now() - interval '1 day'),
                       ('o-granted', 'u1', 'gems', 1, now(), 'finished', 'full', 1, now() - interval '2 days'),
                       ('o-provisional', 'u2', 'gems', 1, now(), 'verified', NULL, 0, NULL),
                       ('o-lost', 'u3', 'shield', 1, now(), 'pending', NULL, 0, NULL)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, state, attempts, last_error,
                                      created_at, finished_at, submitted_by)
                VALUES ('o-provisional', 'receipt', 'QUJD', 'sha-3', 'pending', 4, 'http: HTTP 503',
                        now() - interval '1 hour', NULL, 'u2')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment,
                                            granted_at, store)
                VALUES ('t-owed', 'o-owed', 'u1', 'gems', 2, 'Production', NULL, 'apple'),
                       ('t-granted', 'o-granted', 'u1', 'gems', 1, 'Production', now(), 'apple')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, job_id, cause)
                SELECT 'o-provisional', 'u2', 'apple', 'gems', 1, id, 'store_failing' FROM iap.jobs
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, environment,
                                                    user_id, order_id, store)
                VALUES ('t-stray', 'shield', 1, now() - interval '1 day', 'Production', 'u1', 'o-owed', 'apple')
                """
            )
            let counts = """
                SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.deliveries) || '/' ||
                       (SELECT count(*) FROM iap.provisional_grants) || '/' || (SELECT count(*) FROM iap.unclaimed_payments)
                """
            #expect(try await f.value(counts) == "4/2/1/1")

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == "4/2/1/1")
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            // The two tables: no event (the old data is not replayed), and the endpoint's one row, not configured.
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events") == "0")
            #expect(
                try await f.value(
                    """
                    SELECT count(*) || ':' || bool_and(NOT configured) || ':' || count(disabled_at)
                    FROM iap.webhook_endpoint
                    """
                ) == "1:true:0"
            )
            // Until a daemon runs with a URL, changes write nothing.
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revoked_at = now() WHERE transaction_id = 't-granted'"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events") == "0")

            try await f.configureWebhooks()
            try await TrustRuleTests.withRoles(f) { roles in
                // A refund of the old owed row, as the daemon records it.
                _ = try await roles.worker.execute(
                    """
                    UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund_other'
                    WHERE transaction_id = 't-owed'
                    """
                )
                // The old provisional grant refuted by the order's end.
                try await TrustRuleTests.end(roles.worker, ["o-provisional"], "invalid")
                // The old unclaimed payment given to its order by an operator.
                _ = try await roles.operations.execute("SELECT iap.assign_payment('t-stray', 'o-lost')")
            }
            #expect(
                try await WebhookEventTests.written(f) == [
                    "delivery.revoked o-owed", "order.failed o-provisional", "delivery.revoked o-provisional",
                    "order.verified o-lost",
                ]
            )
            #expect(try await WebhookEventTests.data(f, 0)["revoked_quantity"] == "2")
            #expect(try await WebhookEventTests.data(f, 2)["reason"] == "provisional_refuted")
            #expect(try await WebhookEventTests.data(f, 3)["user_id"] == "u3")

            // The same again changes nothing, and keeps the endpoint as the daemons set it.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events") == "4")
            #expect(try await f.value("SELECT configured::text FROM iap.webhook_endpoint") == "true")
        }
    }
}
