import Foundation
import Logging

/// Runs one claimed job: asks its store through the verifier for its kind, records the result.
///
/// Whatever happens, the job does not stay `running` under this daemon once `run` returns: it is recorded,
/// put back to `pending` with a guarded update, or (when even that cannot be written) left for its lease to
/// lapse, since the daemon heartbeats only the jobs it still has in flight.
struct JobRunner: Sendable {
    let verifiers: [JobKind: any PurchaseVerifier]
    let queue: any JobQueue
    let configuration: ReceiptDaemon.Configuration
    let logger: Logger
    let metrics: ReceiptdMetrics

    /// Processes `job`, which needs `api` (nil: none); when `abort` fires first, the store request is cancelled,
    /// the abandoned attempt noted, and the job (if still ours) goes back to `pending`.
    /// Returns what the attempt says about `api`'s health, for its circuit breaker.
    func run(_ job: ClaimedJob, api: StoreAPI?, abort: AbortSignal) async -> Bool? {
        var logger = logger
        logger[metadataKey: LogKey.jobID] = "\(job.id)"
        logger[metadataKey: LogKey.orderID] = "\(job.order.orderID)"
        logger[metadataKey: LogKey.attempt] = "\(job.attempts)"

        let startedAt = Date()
        let clock = ContinuousClock.now
        guard let verifier = verifiers[job.kind] else { preconditionFailure("no verifier for \(job.kind) jobs") }
        let answer = await abort.run { await verifier.attempt(job) }
        let elapsed = ContinuousClock.now - clock
        guard let answer else {
            logger.info(
                "store request abandoned: the job was superseded or cancelled, or the daemon is stopping",
                metadata: ["api": "\(api?.rawValue ?? "none")"]
            )
            try? await queue.recordAbandoned(
                job,
                attempt: AttemptRecord(startedAt: startedAt, duration: elapsed, attempt: nil)
            )
            await release(job, logger: logger)
            return nil
        }
        if case .postpone(let wait, let reason) = answer.verdict {
            logger.debug("job postponed", metadata: [LogKey.error: "\(reason)", "seconds": "\(wait.seconds)"])
            do {
                _ = try await queue.postpone(job, for: wait, reason: reason)
            } catch {
                logger.warning("could not postpone the job; its lease returns it", metadata: [LogKey.error: "\(error)"])
            }
            return nil
        }
        let attempt = AttemptRecord(startedAt: startedAt, duration: elapsed, attempt: answer)
        if answer.calledStore, let api {
            metrics.appleRequest(
                environment: attempt.environment ?? .production,
                api: api,
                failure: attempt.errorClass,
                seconds: Double(attempt.durationMilliseconds) / 1000
            )
        }
        await record(answer.verdict, attempt: attempt, for: job, logger: logger)
        return answer.calledStore ? attempt.storeHealthy : nil
    }

    /// Writes the verdict, retrying while the database is unreachable or a row it needs is locked by another
    /// transaction, until half the job's lease has passed. A statement the server refuses for its content is not
    /// sent again: the job is rescheduled without it.
    private func record(_ verdict: Verdict, attempt: AttemptRecord, for job: ClaimedJob, logger: Logger) async {
        let deadline = ContinuousClock.now + configuration.lease / 2
        var pause = Duration.milliseconds(100)
        var locked = false
        while true {
            do {
                let (recording, outcome) = try await write(
                    verdict,
                    attempt: attempt,
                    for: job,
                    alone: locked,
                    logger: logger
                )
                if case .retry(let failure) = verdict, recording != .abandoned {
                    metrics.retry(errorClass: failure.errorClass)
                }
                switch recording {
                case .abandoned:
                    logger.info("answer dropped: the job is no longer running under this daemon")
                    var abandoned = attempt
                    abandoned.result = .abandoned
                    try? await queue.recordAbandoned(job, attempt: abandoned)
                case .recorded(let state) where state == .succeeded || state == .failed:
                    // Counted here, once the finish is committed, not once per try at writing it.
                    metrics.jobFinished(state: state, outcome: outcome)
                case .recorded:
                    break
                }
                return
            } catch let error as PostgresError where !error.isTransient {
                logger.error(
                    "the database refused to record the answer; rescheduling the job without it",
                    metadata: [LogKey.error: "\(error)"]
                )
                await reschedule(job, after: error, logger: logger)
                return
            } catch {
                // A row another transaction holds (a game server's left open): tried again, alone, and never
                // counted against the job's attempts.
                locked = (error as? PostgresError)?.isLockTimeout == true
                guard ContinuousClock.now + pause < deadline, !Task.isCancelled else {
                    if locked {
                        await postponeWhileLocked(job, logger: logger)
                        return
                    }
                    logger.error(
                        "could not record the result; rescheduling the job",
                        metadata: [LogKey.error: "\(error)"]
                    )
                    await reschedule(job, after: error, logger: logger)
                    return
                }
                if pause == .milliseconds(100) {
                    logger.warning(
                        "recording failed; keeping the result and retrying",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// After an answer could not be recorded: the job waits its backoff and is asked again (the attempt counts,
    /// so an answer that can never be written ends in `failed`, not in a loop). When even this cannot be written,
    /// the job's heartbeat stops with this task and its lease returns it.
    private func reschedule(_ job: ClaimedJob, after error: any Error, logger: Logger) async {
        let failure = TransientFailure(errorClass: .recording, reason: "could not record the answer: \(error)")
        do {
            let recording = try await queue.recordRetry(
                job,
                failure: failure,
                delay: configuration.backoff.delay(afterAttempt: job.attempts),
                maxAttempts: configuration.maxAttempts,
                attempt: nil
            )
            metrics.retry(errorClass: failure.errorClass)
            if recording == .recorded(.failed) { metrics.jobFinished(state: .failed, outcome: .failed) }
        } catch {
            logger.error(
                "could not reschedule the job either; its lease returns it to pending",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    /// After another transaction held a row the answer needs for half the lease: the job is asked again after
    /// its backoff, without counting the attempt, so a lock never turns into an order outcome. When even this
    /// cannot be written, the job leaves the in-flight set and this daemon's lease pass returns it.
    private func postponeWhileLocked(_ job: ClaimedJob, logger: Logger) async {
        let reason = "waiting for a row lock another transaction holds (a game server's transaction left open?)"
        logger.warning("a row lock held by another transaction kept the answer from being recorded; asking again later")
        do {
            _ = try await queue.postpone(
                job,
                for: configuration.backoff.delay(afterAttempt: job.attempts),
                reason: reason
            )
        } catch {
            logger.error(
                "could not postpone the job either; this daemon's lease pass returns it to pending",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    /// Puts an aborted job back to `pending` at once, if it is still ours (a superseded or cancelled one is not).
    private func release(_ job: ClaimedJob, logger: Logger) async {
        do {
            if try await queue.release(job) { logger.info("job returned to pending") }
        } catch {
            logger.warning(
                "could not return the job to pending; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    /// Writes one verdict; returns how it was written and the order outcome to count when it finished the job.
    private func write(
        _ verdict: Verdict,
        attempt: AttemptRecord,
        for job: ClaimedJob,
        alone: Bool,
        logger: Logger
    ) async throws -> (JobRecording, OrderOutcome?) {
        switch verdict {
        case .verified(let verified):
            if let reason = configuration.planner.rejection(of: verified) {
                logger.notice("purchases rejected", metadata: [LogKey.error: "\(reason)"])
                var rejected = attempt
                rejected.result = .rejected
                rejected.errorClass = .rejected
                rejected.error = reason
                return (try await queue.recordRejection(job, reason: reason, attempt: rejected), .invalid)
            }
            let (transactions, environment) = (verified.purchases, verified.environment)
            let conflicting = transactions.filter { !$0.conflictingFields.isEmpty }
            if !conflicting.isEmpty {
                logger.warning(
                    "copies of a transaction disagree; it pays nothing",
                    metadata: [
                        "transactions":
                            "\(conflicting.map { "\($0.transactionID): \($0.conflictingFields.joined(separator: ","))" })"
                    ]
                )
            }
            let settlement = try await queue.recordVerified(
                VerifiedAnswer(
                    job: job,
                    transactions: transactions,
                    environment: environment,
                    attempt: attempt,
                    store: verified.store,
                    finalization: verified.finalization
                ),
                alone: alone
            )
            let plan = settlement.plan
            if let plan, !plan.foreignPurchases.isEmpty {
                logger.warning(
                    "receipt carries purchases first delivered to another user; they pay nothing",
                    metadata: [
                        "original_transactions": "\(plan.foreignPurchases.map(\.originalTransactionID))"
                    ]
                )
            }
            if let plan, !plan.refusedWithoutToken.isEmpty {
                logger.warning(
                    "a transaction looked up by its id lacks the order's app account token; it pays nothing",
                    metadata: [
                        "transactions": "\(plan.refusedWithoutToken.map(\.transactionID))"
                    ]
                )
            }
            if let plan, let own = plan.orderResults.first {
                logger.info(
                    "order settled",
                    metadata: [
                        "outcome": "\(own.outcome.rawValue)", "delivered": "\(own.deliveredQuantity)",
                        "transactions": "\(plan.deliveries.count)", LogKey.environment: "\(environment.rawValue)",
                    ]
                )
            }
            return (settlement.recording, plan?.orderResults.first?.outcome)
        case .retry(let failure):
            let drawn = configuration.backoff.delay(afterAttempt: job.attempts)
            // Retry-After is honoured, up to an hour or the backoff cap if that is longer.
            let longest = max(configuration.backoff.maximum, .seconds(3600))
            let delay = max(drawn, min(failure.notBefore ?? .zero, longest))
            let recording = try await queue.recordRetry(
                job,
                failure: failure,
                delay: delay,
                maxAttempts: configuration.maxAttempts,
                attempt: attempt
            )
            let exhausted = recording == .recorded(.failed)
            logger.log(
                level: exhausted ? .error : .warning,
                "attempt failed",
                metadata: [
                    LogKey.errorClass: "\(failure.errorClass.rawValue)", LogKey.error: "\(failure.reason)",
                    "next": exhausted ? "none: attempts exhausted" : "in \(String(format: "%.1f", delay.seconds)) s",
                ]
            )
            return (recording, .failed)
        case .reject(let reason):
            logger.notice("rejected by the store", metadata: [LogKey.error: "\(reason)"])
            return (try await queue.recordRejection(job, reason: reason, attempt: attempt), .invalid)
        case .postpone:
            preconditionFailure("a postponed job is put back before anything is recorded")
        }
    }
}
