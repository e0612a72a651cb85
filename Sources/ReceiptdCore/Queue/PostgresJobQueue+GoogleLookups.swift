extension PostgresJobQueue: GoogleLookupQueue {
    package func claimLookups(limit: Int, lease: Duration) async throws -> [ClaimedLookup] {
        try await pool.execute(Self.lookupSQL.claim, [limit, lease.seconds]).namedRows.map { row in
            ClaimedLookup(
                id: Int64(try row.int("id")),
                type: try row.string("notification_type"),
                payload: try row.string("payload"),
                attempts: try row.int("attempts")
            )
        }
    }

    package func storeLookup(_ lookup: ClaimedLookup, key: String, answer: String) async throws -> Bool {
        try await pool.execute(Self.lookupSQL.store, [lookup.id, lookup.attempts, key, answer]).first != nil
    }

    package func deferLookup(
        _ lookup: ClaimedLookup,
        delay: Duration,
        error: String,
        countsAttempt: Bool
    )
        async throws
    {
        try await pool.execute(
            Self.lookupSQL.putOff,
            [lookup.id, lookup.attempts, delay.seconds, String(error.prefix(500)), countsAttempt]
        )
    }

    package func failLookup(_ lookup: ClaimedLookup, error: String) async throws {
        try await pool.execute(Self.lookupSQL.fail, [lookup.id, lookup.attempts, String(error.prefix(500))])
    }

    /// The lookup worker's statements; each but the claim applies only while the row is still this claim's
    /// (`attempts` unchanged, not processed).
    static let lookupSQL = (
        claim: """
        WITH due AS (
            SELECT id FROM iap.store_notifications
            WHERE processed_at IS NULL AND awaiting_lookup AND run_at <= now() AND store = 'google'
            ORDER BY run_at
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.store_notifications n SET run_at = now() + make_interval(secs => $2), attempts = n.attempts + 1
        FROM due WHERE n.id = due.id
        RETURNING n.id, n.notification_type, n.payload::text AS payload, n.attempts
        """,
        store: """
        WITH stored AS (
            UPDATE iap.store_notifications
            SET payload = payload || jsonb_build_object($3::text, $4::jsonb), awaiting_lookup = false, run_at = now(),
                error = NULL
            WHERE id = $1 AND attempts = $2 AND processed_at IS NULL AND awaiting_lookup
            RETURNING id
        )
        SELECT pg_notify('\(notificationsChannel)', id::text) FROM stored
        """,
        putOff: """
        UPDATE iap.store_notifications
        SET run_at = now() + make_interval(secs => $3), error = $4,
            attempts = CASE WHEN $5::boolean THEN attempts ELSE attempts - 1 END
        WHERE id = $1 AND attempts = $2 AND processed_at IS NULL AND awaiting_lookup
        """,
        fail: """
        UPDATE iap.store_notifications
        SET processed_at = now(), result = 'failed', error = $3, awaiting_lookup = false
        WHERE id = $1 AND attempts = $2 AND processed_at IS NULL AND awaiting_lookup
        """
    )
}
