import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationNineUpgradesToTheNotificationsWithItsData() async throws {
        // A database as the receiptd of migration 9 left it, with its four-argument create_order (a stand-in
        // with the same signature: migrate must drop it, or three- and four-argument calls become ambiguous).
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: 9)
        try await connection.execute(
            """
            CREATE FUNCTION iap.create_order(order_id text, user_id text, product_id text, quantity int DEFAULT 1)
            RETURNS timestamptz LANGUAGE sql AS $$
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at)
                VALUES (create_order.order_id, create_order.user_id, create_order.product_id, create_order.quantity, now())
                RETURNING checkout_at
            $$
            """
        )
        await connection.close()
        try await Fixture.with(database: database) { f in
            try await f.connection.execute("SELECT iap.create_order('paid', 'u1', 'gems', 2)")
            try await f.connection.execute("SELECT iap.create_order('voided', 'u2', 'gems')")
            let job = try #require(
                try await f.value(
                    "INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256) VALUES ('paid', 'r', 'h') RETURNING id"
                )
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, job_id,
                                            granted_at, store, revoked_at, revocation_reason)
                VALUES ('t1', 'paid', 'u1', 'gems', 2, 'Production', $1::bigint, now(), 'apple', NULL, NULL),
                       ('GPA.1', 'voided', 'u2', 'gems', 1, NULL, NULL, now(), 'google', now() - interval '1 day', 'voided')
                """,
                [job]
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, user_id, order_id, job_id)
                VALUES ('t9', 'gems', 1, 'Production', 'u1', 'paid', $1::bigint)
                """,
                [job]
            )
            let counts = """
                SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs) || '/' ||
                       (SELECT count(*) FROM iap.deliveries) || '/' || (SELECT count(*) FROM iap.unclaimed_payments)
                """
            let before = try await f.value(counts)
            #expect(before == "2/1/2/1")

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == before)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            let ledger = try await f.row(
                """
                SELECT string_agg(transaction_id || ':' || coalesce(revocation_percentage::text, '-') || ':'
                                  || coalesce(revocation_handled_at::text, '-'), ',' ORDER BY transaction_id) AS rows
                FROM iap.deliveries
                """
            )
            #expect(ledger["rows"] == "GPA.1:-:-,t1:-:-")
            // A purchase voided before the upgrade was never handed to the game: it is owed now.
            #expect(
                try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.owed_revocations('u2')") == "GPA.1"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")

            // The old calls still work, now on the one create_order, and bind nothing.
            #expect(try await f.value("SELECT iap.create_order('paid', 'u1', 'gems', 2)") != nil)
            try await f.connection.execute("SELECT iap.create_order('new', 'u1', 'gems')")
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.orders WHERE app_account_token IS NULL AND account_id IS NULL"
                )
                    == "3"
            )
            // An unclaimed payment may now have no order behind it; the old one keeps its own.
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, app_account_token)
                VALUES ('t10', 'gems', 1, 'Production', gen_random_uuid())
                """
            )
            #expect(
                try await f.value(
                    "SELECT order_id || '/' || job_id FROM iap.unclaimed_payments WHERE transaction_id = 't9'"
                )
                    == "paid/\(job)"
            )
        }
    }
}
