import Foundation

extension JobStore {
    /// Records a transient failure: the job waits `delay` seconds, or becomes `failed` (order `failed`) at the last attempt.
    public func recordRetry(_ job: ClaimedJob, failure: TransientFailure, delay: Double, maxAttempts: Int) async throws -> Recording {
        try await finish(job, outcome: "failed", sql: """
            UPDATE iap.jobs
            SET state = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'pending' END,
                finished_at = CASE WHEN attempts >= $3 THEN now() END,
                run_at = now() + make_interval(secs => $4), last_error = $5,
                malformed_count = malformed_count + $6, locked_by = NULL, heartbeat_at = NULL
            WHERE id = $1 AND state = 'running' AND locked_by = $2
            RETURNING order_id, state
            """, [job.id, owner, maxAttempts, delay, "\(failure.errorClass): \(failure.reason)", failure.isMalformedAnswer ? 1 : 0])
    }

    /// Records a terminal rejection: the job is `failed` and its order `invalid`.
    public func recordRejection(_ job: ClaimedJob, reason: String, environment: AppleEnvironment?) async throws -> Recording {
        try await finish(job, outcome: "invalid", sql: """
            UPDATE iap.jobs
            SET state = 'failed', finished_at = now(), last_error = $3, environment = $4, locked_by = NULL, heartbeat_at = NULL
            WHERE id = $1 AND state = 'running' AND locked_by = $2
            RETURNING order_id, state
            """, [job.id, owner, reason, environment?.rawValue])
    }

    /// Runs a job update; when it leaves the job `failed`, the order takes `outcome` unless goods were already delivered.
    private func finish(_ job: ClaimedJob, outcome: String, sql jobUpdate: String, _ parameters: [any SQLParameter]) async throws -> Recording {
        let outcomeParameter = "$\(parameters.count + 1)"
        let result = try await pool.execute("""
            WITH job AS (\(jobUpdate)), settled AS (
                UPDATE iap.orders o SET outcome = \(outcomeParameter)::iap.outcome, outcome_at = now()
                FROM job
                WHERE o.order_id = job.order_id AND job.state = 'failed'
                  AND o.delivered_quantity = 0 AND o.outcome IS DISTINCT FROM 'full'
                RETURNING 1
            )
            SELECT state FROM job
            """, parameters + [outcome])
        guard let state = result.first?["state"] else { return .abandoned }
        return .recorded(state: state)
    }
}
