import Foundation

extension PostgresJobQueue {
    /// Records a transient failure: the job waits `delay`, or becomes `failed` (order `failed`) at the last attempt.
    ///
    /// Without `attempt` no attempt row is written: the fallback when the attempt's own answer could not be recorded.
    package func recordRetry(
        _ job: ClaimedJob,
        failure: TransientFailure,
        delay: Duration,
        maxAttempts: Int,
        attempt: AttemptRecord?
    ) async throws -> JobRecording {
        try await finish(
            job,
            outcome: .failed,
            attempt: attempt,
            sql: """
                UPDATE iap.jobs
                SET state = CASE WHEN attempts >= $3 THEN '\(JobState.failed.rawValue)' ELSE '\(JobState.pending.rawValue)' END,
                    finished_at = CASE WHEN attempts >= $3 THEN now() END,
                    run_at = now() + make_interval(secs => $4), last_error = $5,
                    malformed_count = malformed_count + $6, locked_by = NULL, heartbeat_at = NULL
                WHERE id = $1 AND \(Self.runningHere)
                RETURNING order_id, state
                """,
            [
                job.id, owner, maxAttempts, delay.seconds, "\(failure.errorClass.rawValue): \(failure.reason)",
                failure.isMalformedAnswer ? 1 : 0,
            ]
        )
    }

    /// Records a terminal rejection: the job is `failed` and its order `invalid`.
    package func recordRejection(_ job: ClaimedJob, reason: String, attempt: AttemptRecord) async throws -> JobRecording
    {
        try await finish(
            job,
            outcome: .invalid,
            attempt: attempt,
            sql: """
                UPDATE iap.jobs
                SET state = '\(JobState.failed.rawValue)', finished_at = now(), last_error = $3, environment = $4, locked_by = NULL, heartbeat_at = NULL
                WHERE id = $1 AND \(Self.runningHere)
                RETURNING order_id, state
                """,
            [job.id, owner, reason, attempt.environment?.rawValue]
        )
    }

    /// Notes an attempt whose answer was not recorded because the job was no longer ours.
    package func recordAbandoned(_ job: ClaimedJob, attempt: AttemptRecord) async throws {
        try await pool.execute(Self.insertAttempts(rows: 2, daemon: 1), [owner, JSONText.rows([attempt.row(of: job)])])
    }

    /// Writes the attempt rows in `$rows` (a `jsonb` array of `AttemptRecord.row(of:)`), by daemon `$daemon`;
    /// with `when`, only while that relation (a CTE) has a row. The one way an attempt reaches `iap.attempts`.
    static func insertAttempts(rows: Int, daemon: Int, when relation: String? = nil) -> String {
        """
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, duration_ms, environment, apple_status, http_status, result,
                                  error_class, error)
        SELECT a.job_id, a.order_id, a.attempt, $\(daemon), to_timestamp(a.started_ms / 1000.0), a.duration_ms, a.environment, a.apple_status,
               a.http_status, a.result, a.error_class, a.error
        FROM \(relation.map { "\($0), " } ?? "")jsonb_to_recordset($\(rows)::jsonb) AS a(job_id bigint, order_id text, attempt int, started_ms bigint,
                                                 duration_ms int, environment text, apple_status bigint, http_status int, result text,
                                                 error_class text, error text)
        """
    }

    /// Runs a job update and writes the attempt row (if any) with it; when the update leaves the job `failed`,
    /// the order takes `outcome` unless goods were already delivered.
    private func finish(
        _ job: ClaimedJob,
        outcome: OrderOutcome,
        attempt: AttemptRecord?,
        sql jobUpdate: String,
        _ parameters: [any SQLParameter]
    ) async throws -> JobRecording {
        let next = parameters.count + 1
        let attemptInsert =
            attempt == nil ? "" : ", attempt AS (\(Self.insertAttempts(rows: next + 1, daemon: 2, when: "job")))"
        let result = try await pool.execute(
            """
            WITH job AS (\(jobUpdate)), settled AS (
                UPDATE iap.orders o SET outcome = $\(next)::iap.outcome, outcome_at = now()
                FROM job
                WHERE o.order_id = job.order_id AND job.state = '\(JobState.failed.rawValue)'
                  AND o.delivered_quantity = 0 AND o.outcome IS DISTINCT FROM 'full'
                RETURNING 1
            )\(attemptInsert)
            SELECT state FROM job
            """,
            parameters + [outcome.rawValue] + (attempt.map { [JSONText.rows([$0.row(of: job)])] } ?? [])
        )
        guard let text = result.first?["state"], let state = JobState(rawValue: text) else { return .abandoned }
        return .recorded(state)
    }
}
