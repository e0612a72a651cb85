import ReceiptdCore
import ReceiptdTestKit

/// A fresh, migrated database per scenario, so no scenario pays for another's rows.
enum BenchmarkDatabase {
    /// Creates database `name` (ours, `[a-z0-9_]`) on the cluster and applies the schema; returns the name.
    /// With `migrator`, that `receiptd` executable's own `migrate` applies its own schema (a baseline build
    /// runs on the schema it shipped with).
    static func create(
        on postgres: TemporaryPostgres,
        named name: String,
        migrator: String? = nil
    ) async throws -> String {
        let admin = try await PostgresConnection.connect(postgres.connectionString())
        do {
            // Identifiers cannot be parameters; the name is ours.
            try await admin.execute("CREATE DATABASE \(name)")
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
        if let migrator {
            try ProcessRunner.run(migrator, ["migrate", "--database-url", postgres.connectionString(database: name)])
            return name
        }
        let connection = try await PostgresConnection.connect(postgres.connectionString(database: name))
        do {
            try await Migrator.migrate(connection)
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        return name
    }
}
