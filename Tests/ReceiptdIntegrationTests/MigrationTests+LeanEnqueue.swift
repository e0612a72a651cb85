import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 18 left it (orders with jobs of each kind, one pending, one
    /// finished) upgrades to migration 19: the rows are kept, jobs.order_id has no foreign key any more, the state
    /// and kind checks still refuse what they refused, under their names, and the game's enqueue works on.
    @Test func aDatabaseAtMigrationEighteenUpgradesKeepingItsJobsAndTheirChecks() async throws {
        let database = try await Self.database(migratedTo: 18)
        try await Fixture.with(database: database) { f in
            // The tables as the enqueue functions of migration 18 filled them (a database holds no routines
            // until the latest migration has run).
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity)
                VALUES ('o-waiting', 'u1', 'gems', 1), ('o-google', 'u2', 'gems', 1)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, submitted_by, state, finished_at)
                VALUES ('o-waiting', 'receipt', 'QUJD', encode(sha256('QUJD'), 'hex'), 'u1', 'pending', NULL),
                       ('o-google', 'google_purchase', 'token-1', 'sha-token-1', 'u2', 'succeeded', now())
                """
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(
                try await f.value(
                    "SELECT string_agg(order_id || ':' || kind || ':' || state, ',' ORDER BY id) FROM iap.jobs"
                )
                    == "o-waiting:receipt:pending,o-google:google_purchase:succeeded"
            )
            #expect(
                try await f.value(
                    "SELECT count(*) FROM pg_constraint WHERE conrelid = 'iap.jobs'::regclass AND contype = 'f' "
                        + "AND conname = 'jobs_order_id_fkey'"
                ) == "0"
            )

            for (column, value, constraint) in [
                ("state", "stuck", "jobs_state_check"), ("kind", "coupon", "jobs_kind_check"),
            ] {
                let refused = await #expect(throws: PostgresError.self) {
                    try await f.connection.execute(
                        "UPDATE iap.jobs SET \(column) = $1 WHERE order_id = 'o-waiting'",
                        [value]
                    )
                }
                #expect(refused?.sqlState == "23514")
                #expect(refused?.message.contains(constraint) == true, "\(refused?.message ?? "")")
            }
            for state in JobState.allCases {
                try await f.connection.execute(
                    "UPDATE iap.jobs SET state = $1 WHERE order_id = 'o-google'",
                    [state.rawValue]
                )
            }

            // A new order, and a newer input replacing the waiting job, as before.
            try await f.connection.execute(
                "SELECT iap.enqueue_receipt('o-new', 'u3', 'gems', 'REVG', 1), "
                    + "iap.enqueue_receipt('o-waiting', 'u1', 'gems', 'R0hJ', 1)"
            )
            #expect(
                try await f.value(
                    "SELECT string_agg(state, ',' ORDER BY id) FROM iap.jobs WHERE order_id IN ('o-waiting', 'o-new')"
                ) == "superseded,pending,pending"
            )
        }
    }
}
