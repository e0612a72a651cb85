import Foundation

/// The daemon's SQL: every statement takes parameters; each state change is one statement or one transaction.
package struct JobStore: Sendable {
    /// How a result was written.
    package enum Recording: Sendable, Equatable {
        /// Written; the job is now in this state.
        case recorded(JobState)
        /// Not written: the job is no longer `running` under this daemon (superseded, cancelled, or its lease lapsed).
        case abandoned
    }

    let pool: DatabasePool
    /// This daemon's `locked_by` value.
    package let owner: String
    /// What verified answers deliver.
    let planner: DeliveryPlanner
    /// Purchases before this are never recorded as unclaimed; `nil`: since the database was first migrated.
    let unclaimedSince: Date?
    private let batcher: SettleBatcher?

    /// Creates a store for the daemon identified by `owner`. With `settleConcurrency`, verified answers that
    /// arrive together are settled together, on at most that many connections at once.
    init(
        pool: DatabasePool,
        owner: String,
        planner: DeliveryPlanner,
        unclaimedSince: Date? = nil,
        settleConcurrency: Int? = nil
    ) {
        let unbatched = JobStore(
            pool: pool,
            owner: owner,
            planner: planner,
            unclaimedSince: unclaimedSince,
            batcher: nil
        )
        self.init(
            pool: pool,
            owner: owner,
            planner: planner,
            unclaimedSince: unclaimedSince,
            batcher: settleConcurrency.map { concurrency in
                SettleBatcher(maximumBatch: Self.settleBatchSize, maximumConcurrent: concurrency) {
                    await unbatched.recordEach($0)
                }
            }
        )
    }

    private init(
        pool: DatabasePool,
        owner: String,
        planner: DeliveryPlanner,
        unclaimedSince: Date?,
        batcher: SettleBatcher?
    ) {
        self.pool = pool
        self.owner = owner
        self.planner = planner
        self.unclaimedSince = unclaimedSince
        self.batcher = batcher
    }

    /// Most verified answers one settle statement takes.
    static let settleBatchSize = 64

    /// Settles one verified answer, together with the others that arrive meanwhile when batching is on, unless
    /// `alone` (an answer whose rows another transaction held locked at the last try: it would hold up a batch).
    package func recordVerified(
        _ answer: VerifiedAnswer,
        alone: Bool = false
    ) async throws -> (Recording, DeliveryPlan?) {
        if let batcher, !alone { return try await batcher.settle(answer) }
        return try await recordVerified([answer])[0]
    }

    /// Claims up to `limit` due jobs that `filter` admits and marks them `running` in the same statement.
    ///
    /// The ids go through `= ANY (ARRAY(…))`: the prepared statement's generic plan guesses a tenth of the
    /// queue for `LIMIT $1`, and joined on that guess it scanned the whole jobs table on every claim.
    /// A job of a kind outside `filter.kinds` (one this binary does not know) is never touched.
    package func claim(limit: Int, filter: ClaimFilter = ClaimFilter()) async throws -> [ClaimedJob] {
        guard !filter.kinds.isEmpty else { return [] }
        let (kinds, transactions) = filter.parameters
        let result = try await pool.execute(Self.claimSQL, [limit, owner, kinds, transactions])
        return try result.namedRows.map { row in
            ClaimedJob(
                id: Int64(try row.int("id")),
                kind: try JobKind(row.string("kind")),
                input: try row.string("receipt_data"),
                attempts: try row.int("attempts"),
                malformedCount: try row.int("malformed_count"),
                order: try OrderSnapshot(row),
                userID: try row.string("user_id"),
                createdAtMilliseconds: Int64(try row.int("job_created_ms"))
            )
        }
    }

    /// The claim: `$1` is the batch size, `$2` this daemon's identity, `$3` the kinds it may take (`text[]`),
    /// `$4` which transaction jobs (`all`, `signed`: not bare decimal ids, `ids`: only those; see `ClaimFilter`).
    /// It still walks `jobs_pending_due` in (run_at, id) order; the filters only skip rows on the way.
    /// Public so that the benchmark's pgbench ceiling runs this very text.
    package static let claimSQL = """
        WITH due AS (
            SELECT id FROM iap.jobs
            WHERE state = 'pending' AND run_at <= now() AND kind = ANY ($3::text[])
              AND (kind <> 'transaction' OR $4::text = 'all' OR ($4::text = 'ids') = (receipt_data ~ '^[0-9]+$'))
            ORDER BY run_at, id
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE iap.jobs j
        SET state = 'running', attempts = j.attempts + 1, started_at = now(), heartbeat_at = now(), locked_by = $2
        FROM iap.orders o
        WHERE j.id = ANY (ARRAY(SELECT id FROM due)) AND o.order_id = j.order_id
        RETURNING j.id, j.kind, j.receipt_data, (extract(epoch FROM j.created_at) * 1000)::bigint AS job_created_ms, j.attempts, j.malformed_count, o.order_id, o.user_id, o.product_id,
                  o.quantity, o.delivered_quantity, (extract(epoch FROM o.created_at) * 1000)::bigint AS created_ms,
                  (extract(epoch FROM o.checkout_at) * 1000)::bigint AS checkout_ms, o.app_account_token, o.account_id
        """

    /// Refreshes the heartbeat of `jobs`, the jobs this daemon is still working on, and of the daemon itself in
    /// `iap.daemons`, with the longest an attempt of its may take.
    ///
    /// Only the jobs in flight: a job the daemon stopped working on for any reason must let its lease lapse.
    /// A job row another transaction holds locked (a game server's enqueue left open) is skipped, never waited
    /// for: the daemon's own row is what tells other daemons that it is alive (see `reclaimExpired`).
    package func heartbeat(jobs: [Int64], attemptLimitSeconds: Double) async throws {
        try await pool.execute(
            """
            WITH jobs AS (
                UPDATE iap.jobs SET heartbeat_at = now()
                WHERE id = ANY (ARRAY(
                    SELECT id FROM iap.jobs WHERE id = ANY ($2::bigint[]) AND state = 'running' AND locked_by = $1
                    FOR UPDATE SKIP LOCKED))
            )
            INSERT INTO iap.daemons (daemon, in_flight, attempt_limit_seconds) VALUES ($1, $3, $4)
            ON CONFLICT (daemon) DO UPDATE
            SET heartbeat_at = now(), in_flight = excluded.in_flight, attempt_limit_seconds = excluded.attempt_limit_seconds
            """,
            [owner, jobs, jobs.count, attemptLimitSeconds]
        )
    }

    /// How long any statement of the daemon waits for a row lock before it fails with SQLSTATE 55P03
    /// (`lock_timeout`, set on every connection of its pool): a twentieth of the lease, between half a second
    /// and a second. Daemons hold their locks for milliseconds; only a transaction left open waits this long.
    package static func lockTimeout(lease: Double) -> Double { min(max(lease / 20, 0.5), 1) }

    /// Whether `jobID` is still `running` under this daemon: the check behind every cancel notification, which
    /// any role can send and so is only a hint.
    package func isRunningHere(_ jobID: Int64, on connection: PostgresConnection) async throws -> Bool {
        try await !connection.execute(
            "SELECT 1 FROM iap.jobs WHERE id = $1 AND state = 'running' AND locked_by = $2",
            [jobID, owner]
        ).rows.isEmpty
    }

    /// Puts one job this daemon stopped working on back to `pending` at once, not counting the interrupted
    /// attempt; does nothing when the job is no longer `running` under this daemon.
    @discardableResult
    package func release(_ job: ClaimedJob) async throws -> Bool {
        try await pool.execute(
            "UPDATE iap.jobs SET \(Self.released) WHERE id = $1 AND state = 'running' AND locked_by = $2",
            [job.id, owner]
        ).affectedRows == 1
    }

    /// Puts a job that could not be tried yet back to `pending`, due in `seconds`, not counting the attempt;
    /// `reason` shows in `last_error` meanwhile.
    @discardableResult
    package func postpone(_ job: ClaimedJob, seconds: Double, reason: String) async throws -> Bool {
        try await pool.execute(
            """
            UPDATE iap.jobs
            SET state = 'pending', run_at = now() + make_interval(secs => $3), attempts = greatest(attempts - 1, 0),
                locked_by = NULL, heartbeat_at = NULL, last_error = $4
            WHERE id = $1 AND state = 'running' AND locked_by = $2
            """,
            [job.id, owner, seconds, reason]
        ).affectedRows == 1
    }

    /// A running job back to `pending`, due now, without counting the interrupted attempt.
    private static let released = """
        state = 'pending', run_at = now(), attempts = greatest(attempts - 1, 0), locked_by = NULL, heartbeat_at = NULL
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
            WHERE id = ANY (ARRAY(SELECT id FROM iap.jobs WHERE state = 'running' AND locked_by = $1 FOR UPDATE SKIP LOCKED))
            """,
            [owner]
        ).affectedRows
    }

    /// Returns to `pending` the running jobs whose heartbeat is `lease` seconds old and whose daemon stopped:
    /// its `iap.daemons` row is as old or gone. Counts the lost attempt (the last one makes the job `failed`).
    /// Also this daemon's own such jobs that are not in `inFlight`: it gave them up without being able to write
    /// that (the database away, or the row held by another transaction), so their attempt is not counted.
    ///
    /// A living daemon's job is never taken, even when its heartbeat could not be refreshed because another
    /// transaction held the row. Rows (job or order) that another transaction holds are skipped, never waited
    /// for: they are taken at a later pass once free.
    @discardableResult
    package func reclaimExpired(lease: Double, maxAttempts: Int, inFlight: [Int64]) async throws -> Int {
        try await pool.execute(
            """
            WITH candidates AS (
                SELECT j.id FROM iap.jobs j
                JOIN iap.orders o ON o.order_id = j.order_id
                LEFT JOIN iap.daemons d ON d.daemon = j.locked_by
                WHERE j.state = 'running' AND j.heartbeat_at < now() - make_interval(secs => $1)
                  AND (d.heartbeat_at IS NULL OR d.heartbeat_at < now() - make_interval(secs => $1)
                       OR (j.locked_by = $3 AND j.id <> ALL ($4::bigint[])))
                FOR UPDATE OF j, o SKIP LOCKED
            ), lapsed AS (
                UPDATE iap.jobs j
                SET state = CASE WHEN locked_by IS DISTINCT FROM $3 AND attempts >= $2 THEN 'failed' ELSE 'pending' END,
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
                FROM lapsed WHERE o.order_id = lapsed.order_id AND lapsed.state = 'failed' AND o.delivered_quantity = 0
                RETURNING 1
            ), forgotten AS (
                DELETE FROM iap.daemons WHERE heartbeat_at < now() - interval '1 day'
            )
            SELECT count(*) AS n FROM lapsed
            """,
            [lease, maxAttempts, owner, inFlight]
        ).first?.int("n") ?? 0
    }

    /// Jobs due now and how long the oldest of them has waited, for the queue gauges.
    package func queueDepth() async throws -> (due: Int, oldestDueAgeSeconds: Double) {
        let row = try await pool.execute(
            """
            SELECT count(*) AS due, coalesce(extract(epoch FROM now() - min(run_at)), 0)::float8 AS age
            FROM iap.jobs WHERE state = 'pending' AND run_at <= now()
            """
        ).first
        return (try row?.int("due") ?? 0, Double(row?["age"] ?? "") ?? 0)
    }

    /// Deletes up to `batch` finished jobs (with their attempts) older than `retention` seconds; the ledger and
    /// orders stay. Returns how many went.
    package func purgeFinished(retention: Double, batch: Int) async throws -> Int {
        try await pool.execute("SELECT iap.purge_finished(make_interval(secs => $1), $2) AS n", [retention, batch])
            .first?.int("n") ?? 0
    }
}

extension OrderSnapshot {
    /// Reads an order from the columns the claim and the settle select under the same names.
    init(_ row: QueryResult.Row) throws {
        self.init(
            orderID: try row.string("order_id"),
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            createdAtMilliseconds: Int64(try row.int("created_ms")),
            deliveredQuantity: try row.int("delivered_quantity"),
            checkoutAtMilliseconds: row["checkout_ms"].flatMap { Int64($0) },
            appAccountToken: row["app_account_token"].flatMap(UUID.init(uuidString:)),
            accountID: row["account_id"]
        )
    }
}
