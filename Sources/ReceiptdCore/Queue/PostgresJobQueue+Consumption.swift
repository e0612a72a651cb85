extension PostgresJobQueue: ConsumptionAnswerQueue {
    /// Claims due `pending` rows no lease holds (`SKIP LOCKED`), reading whether the game granted each transaction.
    package func claimConsumptionRequests(limit: Int, lease: Duration) async throws -> [OwedConsumptionAnswer] {
        try await pool.execute(
            """
            WITH due AS (
                SELECT notification_id FROM iap.consumption_requests
                WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                ORDER BY run_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            )
            UPDATE iap.consumption_requests c
            SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = c.attempts + 1
            FROM due WHERE c.notification_id = due.notification_id
            RETURNING c.notification_id, c.transaction_id, c.environment, c.attempts,
                      EXISTS (SELECT 1 FROM iap.deliveries d
                              WHERE d.store = 'apple' AND d.transaction_id = c.transaction_id
                                AND d.granted_at IS NOT NULL) AS granted
            """,
            [owner, limit, lease.seconds]
        ).namedRows.map { row in
            OwedConsumptionAnswer(
                notificationID: Int64(try row.string("notification_id")) ?? 0,
                transactionID: try row.string("transaction_id"),
                environment: StoreEnvironment(rawValue: try row.string("environment")) ?? .production,
                attempts: try row.int("attempts"),
                deliveredAndGranted: try row.bool("granted")
            )
        }
    }

    /// Renews this daemon's lease on `owed`, while it is still pending.
    package func renewConsumptionLease(_ owed: OwedConsumptionAnswer, lease: Duration) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.consumption_requests SET locked_until = now() + make_interval(secs => $3)
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.notificationID, owner, lease.seconds]
        ).affectedRows == 1
    }

    /// `sent`, with what was sent; the lease is released.
    package func markConsumptionSent(_ owed: OwedConsumptionAnswer, deliveryStatus: String, body: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.consumption_requests
            SET state = 'sent', sent_at = now(), delivery_status = $2, request_body = $3::jsonb, last_error = NULL,
                locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND state = 'pending'
            """,
            [owed.notificationID, deliveryStatus, body]
        )
    }

    /// Due again after `delay`, with the failure; the lease is released.
    package func recordConsumptionRetry(
        _ owed: OwedConsumptionAnswer,
        after delay: Duration,
        error: String
    ) async throws {
        try await pool.execute(
            """
            UPDATE iap.consumption_requests
            SET run_at = now() + make_interval(secs => $3), last_error = $4, locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.notificationID, owner, delay.seconds, String(error.prefix(500))]
        )
    }

    /// Due again after `delay`, the claim's try given back; the lease is released.
    package func postponeConsumption(_ owed: OwedConsumptionAnswer, after delay: Duration) async throws {
        try await pool.execute(
            """
            UPDATE iap.consumption_requests
            SET run_at = now() + make_interval(secs => $3), attempts = greatest(0, attempts - 1),
                locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.notificationID, owner, delay.seconds]
        )
    }

    /// `failed` for good, with Apple's refusal; the lease is released.
    package func markConsumptionFailed(_ owed: OwedConsumptionAnswer, error: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.consumption_requests
            SET state = 'failed', last_error = $2, locked_by = NULL, locked_until = NULL
            WHERE notification_id = $1 AND state = 'pending'
            """,
            [owed.notificationID, String(error.prefix(500))]
        )
    }
}
