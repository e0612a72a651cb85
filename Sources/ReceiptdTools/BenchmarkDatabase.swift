import ReceiptdCore

/// A fresh, migrated database per scenario, so no scenario pays for another's rows.
enum BenchmarkDatabase {
    /// Creates database `name` (ours, `[a-z0-9_]`) on the cluster and applies the schema; returns the name.
    static func create(on postgres: TemporaryPostgres, named name: String) async throws -> String {
        let admin = try await PostgresConnection.connect(postgres.connectionString())
        do {
            // Identifiers cannot be parameters; the name is ours.
            try await admin.execute("CREATE DATABASE \(name)")
            await admin.close()
        } catch {
            await admin.close()
            throw error
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
