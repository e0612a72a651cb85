extension PostgresJobQueue {
    /// `pg_try_advisory_lock` key of the voided poll: "receiptd google voided".
    package static let voidedPollLockKey: Int64 = 0x7263_6474_766F_6964

    /// Takes the session-level advisory lock on one pooled connection and runs `body` on that connection, so
    /// that the lock, the cursor and the marks share one session; a failure is recorded on the cursor row.
    package func withVoidedPollLock<T: Sendable>(
        packageName: String,
        interval: Duration,
        earliestStart: Int64,
        _ body: @Sendable (any VoidedPollCursor) async throws -> T
    ) async throws -> VoidedPollLock<T> {
        try await pool.withConnection { connection in
            guard
                try await connection.execute("SELECT pg_try_advisory_lock($1) AS locked", [Self.voidedPollLockKey])
                    .first?["locked"] == "t"
            else {
                let missing =
                    try await connection.execute(
                        """
                        INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, lock_missed_at, interval_seconds) VALUES ($1, $2, now(), $3)
                        ON CONFLICT (package_name) DO UPDATE SET lock_missed_at = now(), interval_seconds = excluded.interval_seconds
                        RETURNING extract(epoch FROM now() - coalesce(google_voided_cursor.lock_taken_at, google_voided_cursor.created_at))::float8 AS missing
                        """,
                        [packageName, earliestStart, interval.seconds]
                    ).first?["missing"].flatMap(Double.init) ?? 0
                return .held(missingFor: .seconds(missing))
            }
            let cursor = PostgresVoidedPollCursor(connection: connection, packageName: packageName, interval: interval)
            do {
                let value = try await body(cursor)
                _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.voidedPollLockKey])
                return .polled(value)
            } catch {
                _ = try? await connection.execute(
                    """
                    INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at, failed_at, last_error, lock_taken_at, interval_seconds)
                    VALUES ($1, $2, now(), now(), $3, now(), $4)
                    ON CONFLICT (package_name) DO UPDATE SET polled_at = now(), failed_at = now(), last_error = excluded.last_error,
                        lock_taken_at = now(), interval_seconds = excluded.interval_seconds
                    """,
                    [packageName, earliestStart, String("\(error)".prefix(500)), interval.seconds]
                )
                _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.voidedPollLockKey])
                throw error
            }
        }
    }

    /// The sessions holding the voided poll's lock now.
    package func voidedPollLockHolders() async throws -> [AdvisoryLockHolder] {
        try await pool.withConnection { try await AdvisoryLockHolder.holders(of: Self.voidedPollLockKey, on: $0) }
    }
}
