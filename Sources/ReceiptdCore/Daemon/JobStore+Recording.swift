import Foundation

extension JobStore {
    /// Records a transient failure: the job waits `delay` seconds, or becomes `failed` (order `failed`) at the last attempt.
    ///
    /// Without `attempt` no attempt row is written: the fallback when the attempt's own answer could not be recorded.
    package func recordRetry(
        _ job: ClaimedJob,
        failure: TransientFailure,
        delay: Double,
        maxAttempts: Int,
        attempt: AttemptRecord?
    ) async throws -> Recording {
        try await finish(
            job,
            outcome: .failed,
            attempt: attempt,
            sql: """
                UPDATE iap.jobs
                SET state = CASE WHEN attempts >= $3 THEN 'failed' ELSE 'pending' END,
                    finished_at = CASE WHEN attempts >= $3 THEN now() END,
                    run_at = now() + make_interval(secs => $4), last_error = $5,
                    malformed_count = malformed_count + $6, locked_by = NULL, heartbeat_at = NULL
                WHERE id = $1 AND state = 'running' AND locked_by = $2
                RETURNING order_id, state
                """,
            [
                job.id, owner, maxAttempts, delay, "\(failure.errorClass.rawValue): \(failure.reason)",
                failure.isMalformedAnswer ? 1 : 0,
            ]
        )
    }

    /// Records a terminal rejection: the job is `failed` and its order `invalid`.
    package func recordRejection(_ job: ClaimedJob, reason: String, attempt: AttemptRecord) async throws -> Recording {
        try await finish(
            job,
            outcome: .invalid,
            attempt: attempt,
            sql: """
                UPDATE iap.jobs
                SET state = 'failed', finished_at = now(), last_error = $3, environment = $4, locked_by = NULL, heartbeat_at = NULL
                WHERE id = $1 AND state = 'running' AND locked_by = $2
                RETURNING order_id, state
                """,
            [job.id, owner, reason, attempt.environment?.rawValue]
        )
    }

    /// Notes an attempt whose answer was not recorded because the job was no longer ours.
    package func recordAbandoned(_ job: ClaimedJob, attempt: AttemptRecord) async throws {
        try await pool.execute(
            "INSERT INTO iap.attempts \(Self.attemptColumns) VALUES ($1, $2, $3, $4, \(Self.attemptValues(from: 5)))",
            [job.id, job.order.orderID, job.attempts, owner] + attempt.parameters
        )
    }

    static let attemptColumns = """
        (job_id, order_id, attempt, daemon, started_at, duration_ms, environment, apple_status, http_status, result, error_class, error)
        """

    /// Placeholders for `AttemptRecord.parameters`, numbered from `first`.
    static func attemptValues(from first: Int) -> String {
        let n = (first..<first + 8).map { "$\($0)" }
        return "to_timestamp(\(n[0])), \(n[1]), \(n[2]), \(n[3]), \(n[4]), \(n[5]), \(n[6]), \(n[7])"
    }

    /// Runs a job update and writes the attempt row (if any) with it; when the update leaves the job `failed`,
    /// the order takes `outcome` unless goods were already delivered.
    private func finish(
        _ job: ClaimedJob,
        outcome: OrderOutcome,
        attempt: AttemptRecord?,
        sql jobUpdate: String,
        _ parameters: [any SQLParameter]
    ) async throws -> Recording {
        let next = parameters.count + 1
        let attemptInsert =
            attempt == nil
            ? ""
            : """
            , attempt AS (
                INSERT INTO iap.attempts \(Self.attemptColumns)
                SELECT $1, job.order_id, $\(next + 1), $2, \(Self.attemptValues(from: next + 2)) FROM job
            )
            """
        let result = try await pool.execute(
            """
            WITH job AS (\(jobUpdate)), settled AS (
                UPDATE iap.orders o SET outcome = $\(next)::iap.outcome, outcome_at = now()
                FROM job
                WHERE o.order_id = job.order_id AND job.state = 'failed'
                  AND o.delivered_quantity = 0 AND o.outcome IS DISTINCT FROM 'full'
                RETURNING 1
            )\(attemptInsert)
            SELECT state FROM job
            """,
            parameters + [outcome.rawValue] + (attempt.map { [job.attempts] + $0.parameters } ?? [])
        )
        guard let text = result.first?["state"], let state = JobState(rawValue: text) else { return .abandoned }
        return .recorded(state)
    }
}
