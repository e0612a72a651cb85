/// The voided poll's cursor and marks, on the connection that holds the poll's advisory lock.
struct PostgresVoidedPollCursor: VoidedPollCursor {
    let connection: PostgresConnection
    let packageName: String
    let interval: Duration

    func startTime() async throws -> Int64? {
        try await connection.execute(
            "SELECT start_time_ms FROM iap.google_voided_cursor WHERE package_name = $1",
            [packageName]
        ).first?["start_time_ms"].flatMap(Int64.init)
    }

    func markVoided(_ voided: [VoidedDelivery]) async throws -> Int {
        guard !voided.isEmpty else { return 0 }
        let rows = voided.map { entry -> [(String, JSONText.Value)] in
            [
                ("transaction_id", .string(entry.transactionID)), ("voided_ms", .int(entry.voidedAtMilliseconds)),
                ("reason", .string(entry.reason)),
            ]
        }
        return try await connection.execute(
            """
            UPDATE iap.deliveries d SET revoked_at = to_timestamp(v.voided_ms / 1000.0), revocation_reason = v.reason
            FROM jsonb_to_recordset($1::jsonb) AS v(transaction_id text, voided_ms bigint, reason text)
            WHERE d.store = 'google' AND d.transaction_id = v.transaction_id AND d.revoked_at IS NULL
            """,
            [JSONText.rows(rows)]
        ).affectedRows
    }

    func advance(to startTime: Int64) async throws {
        try await connection.execute(
            """
            INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at, succeeded_at, lock_taken_at, interval_seconds)
            VALUES ($1, $2, now(), now(), now(), $3)
            ON CONFLICT (package_name) DO UPDATE SET start_time_ms = excluded.start_time_ms, polled_at = now(), succeeded_at = now(),
                last_error = NULL, lock_taken_at = now(), interval_seconds = excluded.interval_seconds
            """,
            [packageName, startTime, interval.seconds]
        )
    }
}
