import Foundation

extension PostgresJobQueue: AppAccountTokenQueue {
    /// Claims due `pending` rows no lease holds (`SKIP LOCKED`).
    package func claimAppAccountTokenCalls(limit: Int, lease: Duration) async throws -> [OwedAppAccountTokenCall] {
        try await pool.execute(
            """
            WITH due AS (
                SELECT transaction_id FROM iap.app_account_token_calls
                WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                ORDER BY run_at
                LIMIT $2
                FOR UPDATE SKIP LOCKED
            )
            UPDATE iap.app_account_token_calls c
            SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = c.attempts + 1
            FROM due WHERE c.transaction_id = due.transaction_id
            RETURNING c.transaction_id, c.original_transaction_id, c.app_account_token::text AS token, c.environment,
                      c.attempts
            """,
            [owner, limit, lease.seconds]
        ).namedRows.compactMap { row in
            guard let token = UUID(uuidString: try row.string("token")) else { return nil }
            return OwedAppAccountTokenCall(
                transactionID: try row.string("transaction_id"),
                originalTransactionID: try row.string("original_transaction_id"),
                appAccountToken: token,
                environment: StoreEnvironment(rawValue: try row.string("environment")) ?? .production,
                attempts: try row.int("attempts")
            )
        }
    }

    /// Renews this daemon's lease on `owed`, while it is still pending.
    package func renewAppAccountTokenLease(_ owed: OwedAppAccountTokenCall, lease: Duration) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.app_account_token_calls SET locked_until = now() + make_interval(secs => $3)
            WHERE transaction_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.transactionID, owner, lease.seconds]
        ).affectedRows == 1
    }

    /// `sent`; the lease is released.
    package func markAppAccountTokenSent(_ owed: OwedAppAccountTokenCall) async throws {
        try await pool.execute(
            """
            UPDATE iap.app_account_token_calls
            SET state = 'sent', sent_at = now(), last_error = NULL, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND state = 'pending'
            """,
            [owed.transactionID]
        )
    }

    /// Due again after `delay`, with the failure; the lease is released.
    package func recordAppAccountTokenRetry(
        _ owed: OwedAppAccountTokenCall,
        after delay: Duration,
        error: String
    ) async throws {
        try await pool.execute(
            """
            UPDATE iap.app_account_token_calls
            SET run_at = now() + make_interval(secs => $3), last_error = $4, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.transactionID, owner, delay.seconds, String(error.prefix(500))]
        )
    }

    /// Due again after `delay`, the claim's try given back; the lease is released.
    package func postponeAppAccountToken(_ owed: OwedAppAccountTokenCall, after delay: Duration) async throws {
        try await pool.execute(
            """
            UPDATE iap.app_account_token_calls
            SET run_at = now() + make_interval(secs => $3), attempts = greatest(0, attempts - 1),
                locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND locked_by = $2 AND state = 'pending'
            """,
            [owed.transactionID, owner, delay.seconds]
        )
    }

    /// `failed` for good, with Apple's refusal; the lease is released.
    package func markAppAccountTokenFailed(_ owed: OwedAppAccountTokenCall, error: String) async throws {
        try await pool.execute(
            """
            UPDATE iap.app_account_token_calls
            SET state = 'failed', last_error = $2, locked_by = NULL, locked_until = NULL
            WHERE transaction_id = $1 AND state = 'pending'
            """,
            [owed.transactionID, String(error.prefix(500))]
        )
    }
}
