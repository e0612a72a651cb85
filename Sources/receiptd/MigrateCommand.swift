import ArgumentParser
import Foundation
import ReceiptdCore

/// `receiptd migrate`: applies the schema migrations a database lacks, or with `--status` lists them.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Apply the pending schema migrations and replace the iap functions and views (safe to run again, and while daemons run).",
        discussion:
            "With --status: print each migration and whether it is applied; exit 0 when the database is up to date, 3 when migrations are pending."
    )

    @Option(help: "libpq connection string or URI (default: DATABASE_URL, then libpq's PG* variables).")
    var databaseURL: String?

    @Flag(help: "List the migrations instead of applying them; exit 3 while any is pending.")
    var status = false

    @Option(
        help:
            "Seconds to wait for the migration lock another session holds (0 to 86400); then exit 1 naming that session."
    )
    var lockWait: Double = Migrator.defaultLockWait.seconds

    func validate() throws {
        guard lockWait.isFinite, (0...86_400).contains(lockWait) else {
            throw ValidationError("--lock-wait must be a number of seconds from 0 to 86400")
        }
    }

    func run() async throws {
        let url = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        let exit: ExitCode
        do {
            let connection = try await PostgresConnection.connect(url)
            do {
                exit = status ? try await report(connection) : try await apply(connection)
            } catch {
                await connection.close()
                throw error
            }
            await connection.close()
        } catch {
            FileHandle.standardError.write(Data("receiptd: migrate failed: \("\(error)".terminalSafe)\n".utf8))
            throw ExitCode.failure
        }
        if exit != .success { throw exit }
    }

    private func apply(_ connection: PostgresConnection) async throws -> ExitCode {
        let before = try await Migrator.schemaVersion(connection)
        try await Migrator.migrate(connection, lockWait: .milliseconds(Int64(lockWait * 1000)))
        let after = try await Migrator.schemaVersion(connection)
        print(
            before == after
                ? "receiptd: schema iap is up to date at version \(after)"
                : "receiptd: schema iap migrated from version \(before) to \(after)"
        )
        return .success
    }

    private func report(_ connection: PostgresConnection) async throws -> ExitCode {
        let migrations = try await Migrator.status(connection)
        print(
            TextTable(
                headers: ["VERSION", "NAME", "STATE", "APPLIED AT"],
                rows: migrations.map { migration in
                    [String(migration.version), migration.name, Self.state(of: migration), migration.appliedAt]
                }
            ).render()
        )
        if migrations.contains(where: { !$0.checksumMatches }) { return .failure }
        return migrations.contains { !$0.isApplied } ? ExitCode(3) : .success
    }

    private static func state(of migration: MigrationStatus) -> String {
        if !migration.isApplied { return "pending" }
        if !migration.knownToThisBinary { return "applied (by a newer receiptd)" }
        return migration.checksumMatches ? "applied" : "applied, but the file changed since (checksum mismatch)"
    }
}
