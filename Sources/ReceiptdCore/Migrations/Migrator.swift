import Foundation

/// Brings a database's `iap` schema to this binary's version: the numbered migrations it lacks, each in its
/// own transaction and recorded in `iap.schema_migrations`, then every file of `sql/routines/` in name order,
/// all in one transaction (functions, views, roles and grants, which hold no data and are replaced on every
/// run; see ``RoutineFile``). An advisory lock makes concurrent runs wait for each other, for a bounded time:
/// any role can take that lock, and a session that keeps it must not make `migrate` hang.
package enum Migrator {
    /// Any constant works as long as every receiptd uses the same one.
    package static let lockKey = Int64(0x5245_4345_4950_5444)

    /// How long `migrate` waits for another session's migration lock by default (`receiptd migrate --lock-wait`).
    package static let defaultLockWait: Duration = .seconds(60)

    /// Applies every pending migration and the routines. Running it again changes nothing.
    ///
    /// A database made before versioned migrations (no `iap.schema_migrations`) takes migration 1 like an
    /// empty one: its statements are idempotent and match that schema, so the database is recorded at
    /// version 1 and moves on from there. Throws `MigrationError` for a database changed by a newer receiptd,
    /// whose recorded checksum differs from this binary's file, or whose migration lock another session held
    /// for all of `lockWait` (the error names that session); nothing is changed then.
    package static func migrate(_ connection: PostgresConnection, lockWait: Duration = defaultLockWait) async throws {
        try await migrate(connection, upTo: Migration.latestVersion, lockWait: lockWait)
    }

    /// Applies the migrations up to `version`; the routines only when that is this binary's latest (older
    /// tables may lack what they read). For tests that build a database as an older receiptd left it.
    package static func migrate(
        _ connection: PostgresConnection,
        upTo version: Int,
        lockWait: Duration = defaultLockWait
    ) async throws {
        try await connection.withSession { session in
            try lock(session, waitingAtMost: lockWait)
            defer { _ = try? session.execute("SELECT pg_advisory_unlock($1)", [lockKey]) }
            try quietly(session) { session in
                try session.execute("CREATE SCHEMA IF NOT EXISTS iap")
                try session.execute(
                    """
                    CREATE TABLE IF NOT EXISTS iap.schema_migrations (
                        version    int PRIMARY KEY,
                        name       text NOT NULL,
                        checksum   text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                )
            }
            let applied = try verifiedRecords(session)
            for migration in Migration.all where migration.version <= version && applied[migration.version] == nil {
                try quietly(session) { session in
                    try session.executeScript(migration.sql)
                    try session.execute(
                        """
                        INSERT INTO iap.schema_migrations (version, name, checksum)
                        VALUES ($1, $2, encode(sha256(convert_to($3, 'UTF8')), 'hex'))
                        """,
                        [migration.version, migration.name, migration.sql]
                    )
                }
            }
            if version == Migration.latestVersion {
                // All the files in one transaction: a database never has half of them.
                try quietly(session) { session in
                    for file in RoutineFile.all { try session.executeScript(file.sql) }
                }
            }
        }
    }

    /// Takes the migration lock, waiting at most `wait` (PostgreSQL's `lock_timeout` bounds the wait, so no
    /// polling), or throws ``MigrationError/lockHeld(waitedSeconds:holders:)`` naming who holds it.
    private static func lock(_ session: DatabaseSession, waitingAtMost wait: Duration) throws {
        let milliseconds = max(1, Int64(wait.seconds * 1000))
        try session.execute("SELECT set_config('lock_timeout', $1, false)", ["\(milliseconds)ms"])
        defer { _ = try? session.execute("RESET lock_timeout") }
        do {
            try session.execute("SELECT pg_advisory_lock($1)", [lockKey])
        } catch let error as PostgresError where error.sqlState == "55P03" {
            let holders = (try? AdvisoryLockHolder.holders(of: lockKey, in: session)) ?? []
            throw MigrationError.lockHeld(waitedSeconds: wait.seconds, holders: holders.map(\.description))
        }
    }

    /// Each migration this binary knows, applied or pending, then any the database has that this binary does
    /// not know. Reads only; a database without `iap.schema_migrations` has everything pending.
    package static func status(_ connection: PostgresConnection) async throws -> [MigrationStatus] {
        try await connection.withSession { session in
            let records = try records(session)
            let checksums = try checksums(session)
            let known = Migration.all.map { migration in
                MigrationStatus(
                    version: migration.version,
                    name: migration.name,
                    appliedAt: records[migration.version]?.appliedAt,
                    checksumMatches: records[migration.version].map { $0.checksum == checksums[migration.version] }
                        ?? true,
                    knownToThisBinary: true
                )
            }
            let unknown = records.keys.filter { version in !Migration.all.contains { $0.version == version } }.sorted()
                .map { version in
                    MigrationStatus(
                        version: version,
                        name: records[version]!.name,
                        appliedAt: records[version]!.appliedAt,
                        checksumMatches: true,
                        knownToThisBinary: false
                    )
                }
            return known + unknown
        }
    }

    /// The highest migration the database has applied; 0 when it has none (or no `iap.schema_migrations`).
    package static func schemaVersion(_ connection: PostgresConnection) async throws -> Int {
        try await connection.withSession { session in try records(session).keys.max() ?? 0 }
    }

    /// The recorded migrations, after checking that none is unknown to this binary or edited since.
    private static func verifiedRecords(_ session: DatabaseSession) throws -> [Int: Record] {
        let records = try records(session)
        if let newest = records.keys.max(), newest > Migration.latestVersion {
            throw MigrationError.databaseIsNewer(database: newest, binary: Migration.latestVersion)
        }
        let checksums = try checksums(session)
        for migration in Migration.all {
            if let record = records[migration.version], record.checksum != checksums[migration.version] {
                throw MigrationError.checksumMismatch(version: migration.version, name: migration.name)
            }
        }
        return records
    }

    private struct Record {
        var name: String
        var checksum: String
        var appliedAt: String
    }

    private static func records(_ session: DatabaseSession) throws -> [Int: Record] {
        let exists = try session.execute("SELECT to_regclass('iap.schema_migrations') IS NOT NULL AS present").first?
            .bool("present")
        guard exists == true else { return [:] }
        let rows = try session.execute(
            """
            SELECT version, name, checksum, to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS applied_at
            FROM iap.schema_migrations
            """
        ).namedRows
        var records: [Int: Record] = [:]
        for row in rows {
            records[try row.int("version")] = Record(
                name: try row.string("name"),
                checksum: try row.string("checksum"),
                appliedAt: try row.string("applied_at")
            )
        }
        return records
    }

    /// This binary's files' checksums, computed by the same function that recorded them.
    private static func checksums(_ session: DatabaseSession) throws -> [Int: String] {
        var checksums: [Int: String] = [:]
        for migration in Migration.all {
            checksums[migration.version] = try session.execute(
                "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS sum",
                [migration.sql]
            ).first?.string("sum")
        }
        return checksums
    }

    /// One transaction without the "already exists, skipping" notices that idempotent statements raise.
    private static func quietly(_ session: DatabaseSession, _ body: (DatabaseSession) throws -> Void) throws {
        try session.transaction { session in
            try session.execute("SET LOCAL client_min_messages = warning")
            try body(session)
        }
    }
}
