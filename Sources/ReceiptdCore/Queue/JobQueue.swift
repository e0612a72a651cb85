import Foundation

/// Every statement the daemon and its workers run against the queue: claims, leases, recording answers, retention,
/// health, Google acknowledgements and voided purchases, App Store Server API pacing. One PostgreSQL implementation
/// (`PostgresJobQueue`) runs them all on one pool; the unit tests of the runner use an in-memory one.
///
/// Every operation that changes a job acts only on a job that is still `running` under this queue's `owner`.
package protocol JobQueue: Sendable {
    /// This daemon's `locked_by` value.
    var owner: String { get }

    /// Claims up to `limit` due jobs that `filter` admits and marks them `running` under `owner`.
    func claim(limit: Int, filter: ClaimFilter) async throws -> [ClaimedJob]

    /// Settles one verified answer (with others that arrive meanwhile, unless `alone`).
    func recordVerified(_ answer: VerifiedAnswer, alone: Bool) async throws -> Settlement

    /// Records a transient failure: the job waits `delay`, or becomes `failed` at the last of `maxAttempts`.
    /// Without `attempt` no attempt row is written.
    func recordRetry(
        _ job: ClaimedJob,
        failure: TransientFailure,
        delay: Duration,
        maxAttempts: Int,
        attempt: AttemptRecord?
    ) async throws -> JobRecording

    /// Records a terminal rejection: the job is `failed` and its order `invalid`.
    func recordRejection(_ job: ClaimedJob, reason: String, attempt: AttemptRecord) async throws -> JobRecording

    /// Notes an attempt whose answer was not recorded because the job was no longer ours.
    func recordAbandoned(_ job: ClaimedJob, attempt: AttemptRecord) async throws

    /// Puts a job this daemon stopped working on back to `pending` at once, not counting the attempt; false when
    /// it is no longer `running` here.
    func release(_ job: ClaimedJob) async throws -> Bool

    /// Puts a job that could not be tried yet back to `pending`, due after `delay`, not counting the attempt.
    func postpone(_ job: ClaimedJob, for delay: Duration, reason: String) async throws -> Bool

    /// Refreshes the heartbeat of the jobs in flight and of the daemon itself.
    func heartbeat(jobs: [Int64], attemptLimit: Duration) async throws

    /// Whether `jobID` is still `running` under this daemon.
    func isRunningHere(_ jobID: Int64) async throws -> Bool

    /// Returns to `pending` the running jobs of stopped daemons (and this one's that are not `inFlight`).
    func reclaimExpired(lease: Duration, maxAttempts: Int, inFlight: [Int64]) async throws -> Int

    /// Puts this daemon's unfinished jobs back to `pending`, not counting the interrupted attempt.
    func releaseUnfinished() async throws -> Int

    /// Removes this daemon from `iap.daemons`.
    func signOff() async throws

    /// Deletes up to `batch` finished jobs older than `retention`; returns how many went.
    func purgeFinished(retention: Duration, batch: Int) async throws -> Int

    /// Jobs due now and how long the oldest of them has waited.
    func queueDepth() async throws -> QueueDepth

    /// Records the store APIs whose jobs this daemon's claims skip now.
    func publishPausedAPIs(_ apis: [StoreAPI]) async throws

    /// The schema version the database was migrated to.
    func schemaVersion() async throws -> Int

    /// Claims up to `limit` owed Google acknowledgements for `lease`.
    func claimFinalizations(limit: Int, lease: Duration) async throws -> [OwedFinalization]

    /// Renews the lease on `owed` for the call about to be made; false when the row is no longer this daemon's.
    func renewFinalizationLease(_ owed: OwedFinalization, lease: Duration) async throws -> Bool

    /// Records a failed acknowledgement: tried again after `delay`.
    func recordFinalizationFailure(_ owed: OwedFinalization, retryAfter delay: Duration, error: String) async throws

    /// Records an acknowledgement as done.
    func markFinalized(_ owed: OwedFinalization) async throws

    /// Owed acknowledgements past their `overdue_at`.
    func overdueFinalizations() async throws -> Int

    /// Runs `body` under the voided poll's advisory lock (one daemon at a time), on the lock's own connection;
    /// records its success or failure on the package's cursor row. When another session holds the lock, records
    /// that and returns how long no poll has had it.
    func withVoidedPollLock<T: Sendable>(
        packageName: String,
        interval: Duration,
        earliestStart: Int64,
        _ body: @Sendable (any VoidedPollCursor) async throws -> T
    ) async throws -> VoidedPollLock<T>

    /// The sessions holding the voided poll's advisory lock now.
    func voidedPollLockHolders() async throws -> [AdvisoryLockHolder]

    /// Takes `endpoint`'s next request slot, slots 1/`rate` seconds apart, when it is at most `longestWait` away
    /// (`granted`, and how long to wait for it), or tells how long until one could be had (nothing taken).
    func reserveServerAPISlot(
        _ endpoint: AppStoreServerEndpoint,
        rate: Double,
        longestWait: Duration
    ) async throws -> (granted: Bool, wait: Duration)

    /// Holds every daemon's requests to `endpoint` until `until`, at most `longest` from now.
    func blockServerAPI(_ endpoint: AppStoreServerEndpoint, until: Date, longest: Duration) async throws
}
