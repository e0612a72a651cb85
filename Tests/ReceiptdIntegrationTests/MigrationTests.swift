import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// Versioned migrations: an old database upgrades with its data, `migrate` is idempotent, `--status` tells,
/// an edited migration is refused, and a daemon never runs on a schema older than it needs.
@Suite struct MigrationTests {
    /// A fresh database with the migrations up to `version` applied and no routines, as a receiptd of that version
    /// left its schema: an upgrade test fills it and migrates it.
    static func database(migratedTo version: Int) async throws -> TestDatabase {
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: version)
        await connection.close()
        return database
    }

    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A database exactly as the last receiptd before versioned migrations made it.
    private func databaseBeforeMigrations() async throws -> TestDatabase {
        let database = try await TestEnvironment.shared.emptyDatabase()
        let fixture = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Tests/Fixtures/iap_schema_before_migrations.sql"),
            encoding: .utf8
        )
        let connection = try await database.connect()
        try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET LOCAL client_min_messages = warning")
                try session.executeScript(fixture)
            }
        }
        await connection.close()
        return database
    }

    @Test func aDatabaseOfTheOldSchemaUpgradesWithItsDataAndItsPendingJobsSettle() async throws {
        let database = try await databaseBeforeMigrations()
        try await Fixture.with(database: database) { f in
            // Data in every table, written by the old schema's own function and the old daemon's columns.
            try await f.enqueue("waiting", user: "u1", receipt: Receipts.paying("1001"))
            let settled = try await f.enqueue("settled", user: "u2", receipt: Receipts.paying("1002"))
            try await f.connection.execute(
                """
                UPDATE iap.jobs SET state = 'succeeded', attempts = 1, finished_at = now(), environment = 'Production' WHERE id = $1
                """,
                [settled]
            )
            try await f.connection.execute(
                "UPDATE iap.orders SET outcome = 'full', delivered_quantity = 1, outcome_at = now() WHERE order_id = 'settled'"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, job_id)
                VALUES ('1002', 'settled', 'u2', 'gems', 1, 'Production', $1)
                """,
                [settled]
            )
            try await f.addAttempt(job: settled, number: 1, result: "verified", appleStatus: 0, httpStatus: 200)
            try await f.connection.execute("INSERT INTO iap.daemons (daemon, in_flight) VALUES ('old-host:1:x', 0)")
            let before = try await f.value(Self.countsSQL)

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(Self.countsSQL) == before)
            #expect(
                try await f.value(
                    "SELECT string_agg(version || ':' || name, ',' ORDER BY version) FROM iap.schema_migrations"
                )
                    == Migration.all.map { "\($0.version):\($0.name)" }.joined(separator: ",")
            )
            #expect(
                try await f.value(
                    "SELECT data_type FROM information_schema.columns WHERE table_name = 'attempts' AND column_name = 'apple_status'"
                )
                    == "bigint"
            )
            // What the old schema delivered was handed over by its outcome: granted, and the order finished.
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'settled'") == "finished")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('u2')") == "0")
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'waiting'") == "pending")
            // Migration 5: the old jobs are receipt jobs, the old orders bound to no account.
            #expect(try await f.value("SELECT string_agg(DISTINCT kind, ',') FROM iap.jobs") == "receipt")
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE app_account_token IS NOT NULL") == "0")

            // The same again changes nothing.
            let recorded = try await f.value(
                "SELECT string_agg(applied_at::text, ',' ORDER BY version) FROM iap.schema_migrations"
            )
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value(
                    "SELECT string_agg(applied_at::text, ',' ORDER BY version) FROM iap.schema_migrations"
                ) == recorded
            )
            #expect(try await f.value(Self.countsSQL) == before)

            // The new daemon settles the job the old schema queued, and the ledger still refuses a replay.
            try await f.enqueue("replay", user: "u3", receipt: Receipts.paying("1002"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("waiting")["outcome"] == "full")
            #expect(try await f.order("replay")["outcome"] == "unmatched")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = '1002'") == "1")
        }
    }

    private static let countsSQL = """
        SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs) || '/' ||
               (SELECT count(*) FROM iap.deliveries) || '/' || (SELECT count(*) FROM iap.attempts) || '/' ||
               (SELECT count(*) FROM iap.daemons)
        """

    @Test func anUnclaimedPaymentRecordedBeforeTheOriginalIdColumnIsStillAssigned() async throws {
        // A database at migration 6 (Google Play), before unclaimed payments kept their original transaction id.
        let database = try await Self.database(migratedTo: 6)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, outcome, outcome_at) VALUES
                    ('found', 'u1', 'gems', 'unmatched', now()), ('lost', 'u1', 'shield', NULL, NULL)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, environment, user_id, order_id, job_id)
                VALUES ('1201', 'shield', 1, now(), 'Production', 'u1', 'found', 1)
                """
            )
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            let row = try await f.row("SELECT transaction_id, original_transaction_id FROM iap.unclaimed_payments")
            #expect(row["transaction_id"] == "1201" && row["original_transaction_id"] == nil)
            // Its original id is unknown: the transaction id stands in for it, as before.
            try await f.connection.execute("SELECT iap.assign_payment('1201', 'lost')")
            #expect(
                try await f.value("SELECT original_transaction_id || '/' || order_id FROM iap.transaction_owners")
                    == "1201/lost"
            )
            #expect(try await f.value("SELECT order_id FROM iap.deliveries WHERE transaction_id = '1201'") == "lost")
        }
    }

    @Test func aDatabaseUpgradedFromAnOlderReceiptdLosesTheOldSignatures() async throws {
        // A database as the receiptd of migration 5 (StoreKit 2) left it, routines included: its enqueue_job
        // lacks the account_id that Google Play added, and CREATE OR REPLACE would add the new one beside it.
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: 5)
        let oldRoutines = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("Tests/Fixtures/routines_at_version_5.sql"),
            encoding: .utf8
        )
        try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET LOCAL client_min_messages = warning")
                try session.executeScript(oldRoutines)
            }
        }
        #expect(
            try await RoutineTests.functions(connection).contains(
                "enqueue_job(text, text, text, text, text, text, integer, uuid)"
            )
        )
        await connection.close()
        try await Fixture.with(database: database) { f in
            try await f.enqueue("before", receipt: Receipts.paying("1301"))
            try await Migrator.migrate(f.connection)
            // Exactly today's functions: no name has an overload beyond mark_granted's two forms.
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            try await f.enqueue("after", receipt: Receipts.paying("1302"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("before")["outcome"] == "full")
            #expect(try await f.order("after")["outcome"] == "full")
        }
    }

    @Test func migrateStatusTellsAppliedFromPendingAndExitsThreeWhilePending() async throws {
        let database = try await TestEnvironment.shared.emptyDatabase()
        let url = database.connectionString
        let pending = try ReceiptdBinary.run(["migrate", "--status", "--database-url", url])
        #expect(pending.status == 3, "\(pending.stderr)")
        #expect(
            pending.stdout.contains("VERSION") && pending.stdout.contains("1  initial")
                && pending.stdout.contains("pending")
        )

        let first = try ReceiptdBinary.run(["migrate", "--database-url", url])
        #expect(
            first.status == 0 && first.stdout.contains("migrated from version 0 to \(Migration.latestVersion)"),
            "\(first.stderr)"
        )
        let second = try ReceiptdBinary.run(["migrate", "--database-url", url])
        #expect(second.status == 0 && second.stdout.contains("up to date at version \(Migration.latestVersion)"))

        let current = try ReceiptdBinary.run(["migrate", "--status", "--database-url", url])
        #expect(current.status == 0 && !current.stdout.contains("pending"), "\(current.stdout)")
        #expect(current.stdout.split(separator: "\n").filter { $0.contains("applied") }.count == Migration.all.count)
    }

    @Test func anEditedMigrationIsRefused() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("UPDATE iap.schema_migrations SET checksum = 'edited' WHERE version = 1")
            await #expect(throws: MigrationError.checksumMismatch(version: 1, name: "initial")) {
                try await Migrator.migrate(f.connection)
            }
            let run = try ReceiptdBinary.run(["migrate", "--database-url", f.database.connectionString])
            #expect(
                run.status == 1 && run.stderr.contains("migration 1 (initial) was changed")
                    && run.stderr.contains("checksum mismatch")
            )
            let status = try ReceiptdBinary.run(["migrate", "--status", "--database-url", f.database.connectionString])
            #expect(status.status == 1 && status.stdout.contains("checksum mismatch"))
        }
    }

    @Test func aDaemonRefusesAnOlderSchemaAndWorksWithANewerOne() async throws {
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: 1)
        var configuration = ReceiptDaemon.Configuration()
        configuration.expectedBundleID = SyntheticReceipt.defaultBundleID
        let daemon = ReceiptDaemon(
            configuration: configuration,
            connectionString: database.connectionString,
            verifier: AppleVerifier(configuration: .init(), client: .shared),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        await #expect(throws: MigrationError.databaseIsBehind(database: 1, binary: Migration.latestVersion)) {
            try await daemon.run()
        }
        let run = try ReceiptdBinary.run([
            "run", "--database-url", database.connectionString, "--apple-bundle-id", "com.example.game",
            "--metrics-addr", "",
        ])
        #expect(run.status != 0 && (run.stdout + run.stderr).contains("run `receiptd migrate`"), "\(run.stderr)")

        // A newer receiptd's migration: this binary will not migrate over it, but its daemon works on.
        try await Migrator.migrate(connection)
        try await connection.execute(
            "INSERT INTO iap.schema_migrations (version, name, checksum) VALUES ($1, 'from_the_future', 'x')",
            [Migration.latestVersion + 1]
        )
        await #expect(
            throws: MigrationError.databaseIsNewer(
                database: Migration.latestVersion + 1,
                binary: Migration.latestVersion
            )
        ) {
            try await Migrator.migrate(connection)
        }
        await connection.close()
        try await Fixture.with(database: database) { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1101"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
        }
    }

    @Test func everyMigrationFileIsListedInOrder() throws {
        let folder = Self.packageRoot.appendingPathComponent("sql/migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        let listed = Migration.all.map { String(format: "%04d_%@.sql", $0.version, $0.name) }
        #expect(files == listed)
        #expect(Migration.all.map(\.version) == Array(1...Migration.all.count))
        for migration in Migration.all {
            let text = try String(
                contentsOf: folder.appendingPathComponent(
                    String(format: "%04d_%@.sql", migration.version, migration.name)
                ),
                encoding: .utf8
            )
            #expect(text == migration.sql)
        }
    }

    @Test func everyRoutineFileIsListedInOrder() throws {
        let folder = Self.packageRoot.appendingPathComponent("sql/routines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        #expect(!files.isEmpty)
        // The list is the order `migrate` applies them in: the files' name order.
        #expect(RoutineFile.all.map(\.fileName) == files)
        for file in RoutineFile.all {
            let text = try String(contentsOf: folder.appendingPathComponent(file.fileName), encoding: .utf8)
            #expect(text == file.sql, "\(file.fileName)")
        }
    }
}
