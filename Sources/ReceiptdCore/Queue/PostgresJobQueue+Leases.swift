extension PostgresJobQueue {
    /// Refreshes the heartbeat of `jobs`, the jobs this daemon is still working on, and of the daemon itself in
    /// `iap.daemons`, with the longest an attempt of its may take.
    ///
    /// Only the jobs in flight: a job the daemon stopped working on for any reason must let its lease lapse.
    /// A job row another transaction holds locked (a game server's enqueue left open) is skipped, never waited
    /// for: the daemon's own row is what tells other daemons that it is alive (see `reclaimExpired`).
    package func heartbeat(jobs: [Int64], attemptLimit: Duration) async throws {
        try await pool.execute(
            """
            WITH jobs AS (
                UPDATE iap.jobs SET heartbeat_at = now()
                WHERE id = ANY (ARRAY(
                    SELECT id FROM iap.jobs WHERE id = ANY ($2::bigint[]) AND state = '\(JobState.running.rawValue)' AND locked_by = $1
                    FOR UPDATE SKIP LOCKED))
            )
            INSERT INTO iap.daemons (daemon, in_flight, attempt_limit_seconds) VALUES ($1, $3, $4)
            ON CONFLICT (daemon) DO UPDATE
            SET heartbeat_at = now(), in_flight = excluded.in_flight, attempt_limit_seconds = excluded.attempt_limit_seconds
            """,
            [owner, jobs, jobs.count, attemptLimit.seconds]
        )
    }

    /// Whether `jobID` is still `running` under this daemon: the check behind every cancel notification, which
    /// any role can send and so is only a hint.
    package func isRunningHere(_ jobID: Int64) async throws -> Bool {
        try await !pool.execute(
            "SELECT 1 FROM iap.jobs WHERE id = $1 AND state = '\(JobState.running.rawValue)' AND locked_by = $2",
            [jobID, owner]
        ).rows.isEmpty
    }

    /// Puts one job this daemon stopped working on back to `pending` at once, not counting the interrupted
    /// attempt; does nothing when the job is no longer `running` under this daemon.
    @discardableResult
    package func release(_ job: ClaimedJob) async throws -> Bool {
        try await pool.execute(
            "UPDATE iap.jobs SET \(Self.released) WHERE id = $1 AND \(Self.runningHere)",
            [job.id, owner]
        ).affectedRows == 1
    }

    /// Puts a job that could not be tried yet back to `pending`, due after `delay`, not counting the attempt;
    /// `reason` shows in `last_error` meanwhile.
    @discardableResult
    package func postpone(_ job: ClaimedJob, for delay: Duration, reason: String) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.jobs
            SET state = '\(JobState.pending.rawValue)', run_at = now() + make_interval(secs => $3), attempts = greatest(attempts - 1, 0),
                locked_by = NULL, heartbeat_at = NULL, last_error = $4
            WHERE id = $1 AND \(Self.runningHere)
            """,
            [job.id, owner, delay.seconds, reason]
        ).affectedRows == 1
    }

    /// A job that is `running` under this daemon (`$2`).
    static let runningHere = "state = '\(JobState.running.rawValue)' AND locked_by = $2"

    /// A running job back to `pending`, due now, without counting the interrupted attempt.
    private static let released = """
        state = '\(JobState.pending.rawValue)', run_at = now(), attempts = greatest(attempts - 1, 0), locked_by = NULL, heartbeat_at = NULL
        """

    /// Removes this daemon from `iap.daemons` on a graceful stop.
    package func signOff() async throws {
        try await pool.execute("DELETE FROM iap.daemons WHERE daemon = $1", [owner])
    }

    /// Puts this daemon's unfinished jobs back to `pending`, not counting the interrupted attempt. One that
    /// another transaction holds locked is left: once this daemon has signed off, any daemon's lease pass takes it.
    @discardableResult
    package func releaseUnfinished() async throws -> Int {
        try await pool.execute(
            """
            UPDATE iap.jobs SET \(Self.released)
            WHERE id = ANY (ARRAY(SELECT id FROM iap.jobs WHERE state = '\(JobState.running.rawValue)' AND locked_by = $1 FOR UPDATE SKIP LOCKED))
            """,
            [owner]
        ).affectedRows
    }

    /// Returns to `pending` the running jobs whose heartbeat is `lease` old and whose daemon stopped: its
    /// `iap.daemons` row is as old or gone. Counts the lost attempt (the last one makes the job `failed`).
    /// Also this daemon's own such jobs that are not in `inFlight`: it gave them up without being able to write
    /// that (the database away, or the row held by another transaction), so their attempt is not counted.
    ///
    /// A living daemon's job is never taken, even when its heartbeat could not be refreshed because another
    /// transaction held the row. Rows (job or order) that another transaction holds are skipped, never waited
    /// for: they are taken at a later pass once free.
    @discardableResult
    package func reclaimExpired(lease: Duration, maxAttempts: Int, inFlight: [Int64]) async throws -> Int {
        try await pool.execute(
            """
            WITH candidates AS (
                SELECT j.id FROM iap.jobs j
                JOIN iap.orders o ON o.order_id = j.order_id
                LEFT JOIN iap.daemons d ON d.daemon = j.locked_by
                WHERE j.state = '\(JobState.running.rawValue)' AND j.heartbeat_at < now() - make_interval(secs => $1)
                  AND (d.heartbeat_at IS NULL OR d.heartbeat_at < now() - make_interval(secs => $1)
                       OR (j.locked_by = $3 AND j.id <> ALL ($4::bigint[])))
                FOR UPDATE OF j, o SKIP LOCKED
            ), lapsed AS (
                UPDATE iap.jobs j
                SET state = CASE WHEN locked_by IS DISTINCT FROM $3 AND attempts >= $2 THEN '\(JobState.failed.rawValue)'
                                 ELSE '\(JobState.pending.rawValue)' END,
                    finished_at = CASE WHEN locked_by IS DISTINCT FROM $3 AND attempts >= $2 THEN now() END,
                    attempts = CASE WHEN locked_by = $3 THEN greatest(attempts - 1, 0) ELSE attempts END,
                    run_at = now(),
                    last_error = CASE WHEN locked_by = $3 THEN 'daemon ' || locked_by || ' gave the job up without recording an answer'
                                      ELSE 'lease expired: daemon ' || coalesce(locked_by, '?') || ' stopped' END,
                    locked_by = NULL, heartbeat_at = NULL
                WHERE j.id = ANY (ARRAY(SELECT id FROM candidates))
                RETURNING order_id, state
            ), failed AS (
                UPDATE iap.orders o SET outcome = 'failed', outcome_at = now()
                FROM lapsed WHERE o.order_id = lapsed.order_id AND lapsed.state = '\(JobState.failed.rawValue)' AND o.delivered_quantity = 0
                RETURNING 1
            ), forgotten AS (
                DELETE FROM iap.daemons WHERE heartbeat_at < now() - interval '1 day'
            )
            SELECT count(*) AS n FROM lapsed
            """,
            [lease.seconds, maxAttempts, owner, inFlight]
        ).first?.int("n") ?? 0
    }
}
