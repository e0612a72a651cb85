import ArgumentParser
import Foundation
import ReceiptdCore

/// `receiptd migrate`: creates or updates the `iap` schema.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or update the iap schema (idempotent; safe to run while daemons run).")

    @Option(help: "libpq connection string or URI (default: DATABASE_URL, then libpq's PG* variables).")
    var databaseURL: String?

    func run() async throws {
        let url = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        do {
            let connection = try await PostgresConnection.connect(url)
            do {
                try await Migrator.migrate(connection)
            } catch {
                await connection.close()
                throw error
            }
            await connection.close()
            print("receiptd: schema iap is up to date")
        } catch {
            FileHandle.standardError.write(Data("receiptd: migrate failed: \("\(error)".terminalSafe)\n".utf8))
            throw ExitCode.failure
        }
    }
}
