extension PostgresJobQueue {
    /// Jobs due now and how long the oldest of them has waited, for the queue gauges.
    package func queueDepth() async throws -> QueueDepth {
        let row = try await pool.execute(
            """
            SELECT count(*) AS due, coalesce(extract(epoch FROM now() - min(run_at)), 0)::float8 AS age
            FROM iap.jobs WHERE state = '\(JobState.pending.rawValue)' AND run_at <= now()
            """
        ).first
        return QueueDepth(due: try row?.int("due") ?? 0, oldestDueAge: .seconds(Double(row?["age"] ?? "") ?? 0))
    }

    /// Records in `iap.daemons.paused_apis` the store APIs whose jobs this daemon's claims skip now.
    package func publishPausedAPIs(_ apis: [StoreAPI]) async throws {
        try await pool.execute(
            """
            INSERT INTO iap.daemons (daemon, paused_apis) VALUES ($1, $2::text[])
            ON CONFLICT (daemon) DO UPDATE SET paused_apis = excluded.paused_apis
            """,
            [owner, "{" + apis.map(\.rawValue).joined(separator: ",") + "}"]
        )
    }

    /// The schema version the database was migrated to, read on a pooled connection.
    package func schemaVersion() async throws -> Int {
        try await pool.withConnection { try await Migrator.schemaVersion($0) }
    }
}
