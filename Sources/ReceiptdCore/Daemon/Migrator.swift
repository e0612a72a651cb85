import Foundation

/// Applies `sql/` (embedded in the binary at build time) to a database.
public enum Migrator {
    /// The schema script, as `sql/iap_schema.sql` had it when this binary was built.
    public static var schemaSQL: String { String(decoding: PackageResources.iap_schema_sql, as: UTF8.self) }

    /// Applies the schema in one transaction under an advisory lock, so concurrent runs wait for each other
    /// and a failure leaves the database as it was.
    public static func migrate(_ connection: PostgresConnection) async throws {
        let script = schemaSQL
        try await connection.withSession { session in
            try session.transaction { session in
                // Any constant works as long as every receiptd uses the same one.
                try session.execute("SELECT pg_advisory_xact_lock($1)", [Int64(0x5245_4345_4950_5444)])
                // "already exists, skipping" notices are expected on every run after the first.
                try session.execute("SET LOCAL client_min_messages = warning")
                try session.executeScript(script)
            }
        }
    }
}
