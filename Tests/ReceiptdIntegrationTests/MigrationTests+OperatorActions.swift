import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationThirteenUpgradesToAnEmptyAuditTrailAndItsActionsAreRecorded() async throws {
        // A database as the receiptd of migration 13 left it (its tables only: the routines come with the latest): a
        // full order with its delivery, a failed order, a trust level an operator set, and a webhook event.
        let database = try await Self.database(migratedTo: 13)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status, outcome,
                                        delivered_quantity, outcome_at)
                VALUES ('o-paid', 'u1', 'gems', 1, now(), 'verified', 'full', 1, now() - interval '1 day'),
                       ('o-failed', 'u2', 'gems', 1, now(), 'pending', 'failed', 0, now() - interval '1 hour')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, state, attempts, last_error,
                                      created_at, finished_at, submitted_by)
                VALUES ('o-paid', 'receipt', 'QUJD', 'sha-1', 'succeeded', 1, NULL, now() - interval '1 day', now(), 'u1'),
                       ('o-failed', 'receipt', 'REVG', 'sha-2', 'failed', 5, 'http: HTTP 503', now() - interval '2 hours',
                        now() - interval '1 hour', 'u2')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store)
                VALUES ('t-paid', 'o-paid', 'u1', 'gems', 1, 'Production', 'apple')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.user_trust (user_id, store, trusted, streak, changed_at, reason)
                VALUES ('u1', 'apple', true, 0, now(), 'operator: old-operator')
                """
            )
            try await f.writeWebhookEvent(order: "o-paid")
            let counts = """
                SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs) || '/' ||
                       (SELECT count(*) FROM iap.deliveries) || '/' || (SELECT count(*) FROM iap.user_trust) || '/' ||
                       (SELECT count(*) FROM iap.webhook_events) || '/' ||
                       (SELECT reason FROM iap.user_trust WHERE user_id = 'u1')
                """
            #expect(try await f.value(counts) == "2/2/1/1/1/operator: old-operator")
            #expect(try await f.value("SELECT (to_regclass('iap.operator_actions') IS NULL)::text") == "true")

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == "2/2/1/1/1/operator: old-operator")
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            // The trail starts empty: nothing before the upgrade is made up.
            #expect(try await f.value("SELECT count(*) FROM iap.operator_actions") == "0")
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
                    WHERE table_schema = 'iap' AND table_name = 'operator_actions'
                    """
                ) == "id,at,actor,action,target,result,session_user,order_id"
            )

            // The old failed order is retried through the operator's role, and the trail has it.
            let operations = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_operator"))
            let retried = try await OperatorQueries(connection: operations, actor: "alice").retry("o-failed")
            await operations.close()
            #expect(
                try await OperatorAuditTests.trail(f) == [
                    "alice|retry|o-failed|job \(retried.jobID)|\(f.database.name)_operator|o-failed"
                ]
            )

            // The same again changes nothing, and keeps the trail.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value("SELECT count(*) FROM iap.operator_actions") == "1")
        }
    }
}
