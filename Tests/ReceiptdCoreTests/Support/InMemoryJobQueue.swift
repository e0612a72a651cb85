import Foundation
import Synchronization

@testable import ReceiptdCore

/// A `JobQueue` in memory, for unit tests of the runner: jobs, their attempts and their orders' outcomes, with the
/// rule every PostgreSQL statement keeps (a job changes only while it is `running` under this queue's owner), and
/// knobs to make a settle fail. The workers' operations (Google, pacing) do nothing here.
final class InMemoryJobQueue: JobQueue {
    /// One job as the queue holds it.
    struct Row: Sendable {
        var job: ClaimedJob
        var state: JobState
        var lockedBy: String?
        /// How long after the last change the job is due again.
        var delay: Duration?
        var lastError: String?
        var outcome: OrderOutcome?
    }

    private struct State {
        var rows: [Int64: Row] = [:]
        var attempts: [(jobID: Int64, record: AttemptRecord)] = []
        /// Errors the next settles throw, first first.
        var settleFailures: [any Error] = []
        /// Every settle asked for: whether it was asked alone.
        var settles: [Bool] = []
    }

    let owner: String
    private let state = Mutex(State())

    init(owner: String = "memory:1:test") {
        self.owner = owner
    }

    // MARK: Test knobs and readings

    /// Adds `job` as `pending` (its `attempts` are those before its next claim).
    func enqueue(_ job: ClaimedJob) {
        state.withLock { $0.rows[job.id] = Row(job: job, state: .pending) }
    }

    /// The job as the queue holds it now.
    func row(_ id: Int64) -> Row? { state.withLock { $0.rows[id] } }

    /// The attempts written for `id`, oldest first.
    func attempts(of id: Int64) -> [AttemptRecord] {
        state.withLock { $0.attempts.filter { $0.jobID == id }.map(\.record) }
    }

    /// Closes the job as another transaction would (superseded by a newer receipt): it is no longer ours.
    func supersede(_ id: Int64) {
        state.withLock {
            $0.rows[id]?.state = .superseded
            $0.rows[id]?.lockedBy = nil
        }
    }

    /// Makes the next settles throw `errors`, one each.
    func failSettles(with errors: [any Error]) { state.withLock { $0.settleFailures = errors } }

    /// Whether each settle so far was asked alone.
    var settles: [Bool] { state.withLock { $0.settles } }

    // MARK: JobQueue

    func claim(limit: Int, filter: ClaimFilter) async throws -> [ClaimedJob] {
        state.withLock { state in
            let due = state.rows.values.filter { $0.state == .pending && filter.kinds.contains($0.job.kind) }
                .sorted { $0.job.id < $1.job.id }.prefix(limit)
            return due.map { row in
                var claimed = row
                claimed.state = .running
                claimed.lockedBy = owner
                claimed.job.attempts += 1
                claimed.delay = nil
                state.rows[row.job.id] = claimed
                return claimed.job
            }
        }
    }

    func recordVerified(_ answer: VerifiedAnswer, alone: Bool) async throws -> Settlement {
        try state.withLock { state in
            state.settles.append(alone)
            if !state.settleFailures.isEmpty { throw state.settleFailures.removeFirst() }
            guard Self.isRunning(answer.job.id, in: state, owner: owner) else {
                return Settlement(recording: .abandoned, plan: nil)
            }
            state.rows[answer.job.id]?.state = .succeeded
            state.rows[answer.job.id]?.lockedBy = nil
            state.rows[answer.job.id]?.outcome = .full
            state.attempts.append((answer.job.id, answer.attempt))
            return Settlement(recording: .recorded(.succeeded), plan: nil)
        }
    }

    func recordRetry(
        _ job: ClaimedJob,
        failure: TransientFailure,
        delay: Duration,
        maxAttempts: Int,
        attempt: AttemptRecord?
    ) async throws -> JobRecording {
        state.withLock { state in
            guard Self.isRunning(job.id, in: state, owner: owner), var row = state.rows[job.id] else {
                return .abandoned
            }
            row.state = row.job.attempts >= maxAttempts ? .failed : .pending
            row.outcome = row.state == .failed ? .failed : nil
            row.delay = delay
            row.lastError = "\(failure.errorClass.rawValue): \(failure.reason)"
            row.lockedBy = nil
            state.rows[job.id] = row
            if let attempt { state.attempts.append((job.id, attempt)) }
            return .recorded(row.state)
        }
    }

    func recordRejection(_ job: ClaimedJob, reason: String, attempt: AttemptRecord) async throws -> JobRecording {
        state.withLock { state in
            guard Self.isRunning(job.id, in: state, owner: owner) else { return .abandoned }
            state.rows[job.id]?.state = .failed
            state.rows[job.id]?.outcome = .invalid
            state.rows[job.id]?.lastError = reason
            state.rows[job.id]?.lockedBy = nil
            state.attempts.append((job.id, attempt))
            return .recorded(.failed)
        }
    }

    func recordAbandoned(_ job: ClaimedJob, attempt: AttemptRecord) async throws {
        state.withLock { $0.attempts.append((job.id, attempt)) }
    }

    func release(_ job: ClaimedJob) async throws -> Bool {
        backToPending(job.id, delay: nil, reason: nil)
    }

    func postpone(_ job: ClaimedJob, for delay: Duration, reason: String) async throws -> Bool {
        backToPending(job.id, delay: delay, reason: reason)
    }

    /// A running job of ours back to `pending` without counting its attempt.
    private func backToPending(_ id: Int64, delay: Duration?, reason: String?) -> Bool {
        state.withLock { state in
            guard Self.isRunning(id, in: state, owner: owner) else { return false }
            state.rows[id]?.state = .pending
            state.rows[id]?.lockedBy = nil
            state.rows[id]?.job.attempts -= 1
            state.rows[id]?.delay = delay
            if let reason { state.rows[id]?.lastError = reason }
            return true
        }
    }

    private static func isRunning(_ id: Int64, in state: State, owner: String) -> Bool {
        state.rows[id]?.state == .running && state.rows[id]?.lockedBy == owner
    }

    func heartbeat(jobs: [Int64], attemptLimit: Duration) async throws {}

    func isRunningHere(_ jobID: Int64) async throws -> Bool {
        state.withLock { Self.isRunning(jobID, in: $0, owner: owner) }
    }

    func reclaimExpired(lease: Duration, maxAttempts: Int, inFlight: [Int64]) async throws -> Int { 0 }

    func releaseUnfinished() async throws -> Int {
        let running = state.withLock { state in state.rows.keys.filter { Self.isRunning($0, in: state, owner: owner) } }
        return running.filter { backToPending($0, delay: nil, reason: nil) }.count
    }

    func signOff() async throws {}

    func purgeFinished(retention: Duration, batch: Int) async throws -> Int { 0 }

    func queueDepth() async throws -> QueueDepth {
        QueueDepth(due: state.withLock { $0.rows.values.filter { $0.state == .pending }.count }, oldestDueAge: .zero)
    }

    func publishPausedAPIs(_ apis: [StoreAPI]) async throws {}

    func schemaVersion() async throws -> Int { Migration.latestVersion }

    func claimFinalizations(limit: Int, lease: Duration) async throws -> [OwedFinalization] { [] }

    func renewFinalizationLease(_ owed: OwedFinalization, lease: Duration) async throws -> Bool { false }

    func recordFinalizationFailure(_ owed: OwedFinalization, retryAfter delay: Duration, error: String) async throws {}

    func markFinalized(_ owed: OwedFinalization) async throws {}

    func overdueFinalizations() async throws -> Int { 0 }

    func withVoidedPollLock<T: Sendable>(
        packageName: String,
        interval: Duration,
        earliestStart: Int64,
        _ body: @Sendable (any VoidedPollCursor) async throws -> T
    ) async throws -> VoidedPollLock<T> {
        .held(missingFor: .zero)
    }

    func voidedPollLockHolders() async throws -> [AdvisoryLockHolder] { [] }

    func reserveServerAPISlot(
        _ endpoint: AppStoreServerEndpoint,
        rate: Double,
        longestWait: Duration
    ) async throws -> (granted: Bool, wait: Duration) {
        (true, .zero)
    }

    func blockServerAPI(_ endpoint: AppStoreServerEndpoint, until: Date, longest: Duration) async throws {}
}
