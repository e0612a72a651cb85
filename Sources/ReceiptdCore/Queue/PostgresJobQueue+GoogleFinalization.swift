extension PostgresJobQueue {
    /// Claims up to `limit` owed acknowledgements that are due and not leased, for `lease`, counting the try.
    package func claimFinalizations(limit: Int, lease: Duration) async throws -> [OwedFinalization] {
        try await pool.execute(
            """
            WITH due AS (
                SELECT transaction_id FROM iap.google_finalizations
                WHERE done_at IS NULL AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                ORDER BY run_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            )
            UPDATE iap.google_finalizations f
            SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = f.attempts + 1
            FROM due WHERE f.transaction_id = due.transaction_id
            RETURNING f.transaction_id, f.product_id, f.purchase_token, f.action, f.attempts
            """,
            [owner, limit, lease.seconds]
        ).namedRows.map { row in
            OwedFinalization(
                transactionID: try row.string("transaction_id"),
                productID: try row.string("product_id"),
                token: try row.string("purchase_token"),
                action: GoogleFinalizeAction(rawValue: try row.string("action")) ?? .acknowledge,
                attempts: try row.int("attempts")
            )
        }
    }

    /// Renews the lease on `owed` for the call about to be made; false when the row is no longer this daemon's
    /// (its lease ran out while earlier calls of the batch were made, and another daemon claimed it) or is done.
    package func renewFinalizationLease(_ owed: OwedFinalization, lease: Duration) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.google_finalizations SET locked_until = now() + make_interval(secs => $3)
            WHERE transaction_id = $1 AND locked_by = $2 AND done_at IS NULL
            """,
            [owed.transactionID, owner, lease.seconds]
        ).affectedRows == 1
    }

    /// Records a failed call: the row is due again after `delay` and free for any daemon.
    package func recordFinalizationFailure(
        _ owed: OwedFinalization,
        retryAfter delay: Duration,
        error: String
    ) async throws {
        try await pool.execute(
            """
            UPDATE iap.google_finalizations
            SET run_at = now() + make_interval(secs => $3), last_error = $4, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND locked_by = $2 AND done_at IS NULL
            """,
            [owed.transactionID, owner, delay.seconds, error]
        )
    }

    /// Records the call as made.
    package func markFinalized(_ owed: OwedFinalization) async throws {
        try await pool.execute(
            """
            UPDATE iap.google_finalizations SET done_at = now(), last_error = NULL, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND done_at IS NULL
            """,
            [owed.transactionID]
        )
    }

    /// Owed calls past their `overdue_at`.
    package func overdueFinalizations() async throws -> Int {
        try await pool.execute(
            "SELECT count(*) AS n FROM iap.google_finalizations WHERE done_at IS NULL AND overdue_at < now()"
        ).first?.int("n") ?? 0
    }
}
