import Foundation
import Logging

/// Runs one claimed job: asks Apple, classifies the answer, records the result.
struct JobRunner: Sendable {
    let verifier: AppleVerifier
    let store: JobStore
    let configuration: ReceiptDaemon.Configuration
    let logger: Logger
    let metrics: ReceiptdMetrics

    /// Processes `job`; when `abort` fires first, the Apple request is cancelled and nothing is written.
    /// Returns what the attempt says about Apple's health, for the circuit breaker.
    func run(_ job: ClaimedJob, abort: AbortSignal) async -> Bool? {
        var logger = logger
        logger[metadataKey: LogKey.jobID] = "\(job.id)"
        logger[metadataKey: LogKey.orderID] = "\(job.order.orderID)"
        logger[metadataKey: LogKey.attempt] = "\(job.attempts)"

        let startedAt = Date()
        let clock = ContinuousClock.now
        let answer: AppleCallResult? = await withTaskGroup(of: AppleCallResult?.self) { group in
            group.addTask { await verifier.verify(receiptData: job.receiptData) }
            group.addTask {
                await abort.wait()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let elapsed = ContinuousClock.now - clock
        guard let answer else {
            logger.info("Apple request abandoned: the job was superseded or the daemon is stopping")
            try? await store.recordAbandoned(job, attempt: AttemptRecord(startedAt: startedAt, duration: elapsed, call: nil, verdict: nil))
            return nil
        }
        let verdict = RetryClassifier.classify(answer, malformedAnswersSoFar: job.malformedCount)
        let attempt = AttemptRecord(startedAt: startedAt, duration: elapsed, call: answer, verdict: verdict)
        metrics.appleRequest(environment: attempt.environment ?? .production, resultClass: attempt.errorClass ?? "ok",
                             seconds: Double(attempt.durationMilliseconds) / 1000)
        await record(verdict, attempt: attempt, for: job, logger: logger)
        return attempt.appleHealthy
    }

    /// Writes the verdict, retrying while the database is unreachable, until the job's lease would lapse.
    private func record(_ verdict: Verdict, attempt: AttemptRecord, for job: ClaimedJob, logger: Logger) async {
        let deadline = ContinuousClock.now + .seconds(configuration.lease / 2)
        var pause = Duration.milliseconds(100)
        while true {
            do {
                let recording = try await write(verdict, attempt: attempt, for: job, logger: logger)
                if recording == .abandoned {
                    logger.info("answer dropped: the job is no longer running under this daemon")
                    var abandoned = attempt
                    abandoned.result = .abandoned
                    try? await store.recordAbandoned(job, attempt: abandoned)
                }
                return
            } catch {
                guard ContinuousClock.now + pause < deadline, !Task.isCancelled else {
                    logger.error("could not record the result; the job returns to pending when its lease lapses",
                                 metadata: [LogKey.error: "\(error)"])
                    return
                }
                if pause == .milliseconds(100) {
                    logger.warning("recording failed; keeping the result and retrying", metadata: [LogKey.error: "\(error)"])
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    private func write(_ verdict: Verdict, attempt: AttemptRecord, for job: ClaimedJob, logger: Logger) async throws -> JobStore.Recording {
        switch verdict {
        case .verified(let response, let environment):
            let planner = DeliveryPlanner(purchaseSkewSeconds: configuration.purchaseSkew, expectedBundleID: configuration.expectedBundleID)
            if let reason = planner.rejection(of: response) {
                logger.notice("receipt rejected", metadata: [LogKey.error: "\(reason)"])
                var rejected = attempt
                rejected.result = .rejected
                rejected.error = reason
                metrics.jobFinished(state: "failed", outcome: .invalid)
                return try await store.recordRejection(job, reason: reason, attempt: rejected)
            }
            let (recording, plan) = try await store.recordVerified(
                job, response: response, environment: environment, planner: planner, attempt: attempt)
            if recording != .abandoned { metrics.jobFinished(state: "succeeded", outcome: plan?.orderResults.first?.outcome) }
            if let plan, let own = plan.orderResults.first {
                logger.info("order settled", metadata: [
                    "outcome": "\(own.outcome.rawValue)", "delivered": "\(own.deliveredQuantity)",
                    "transactions": "\(plan.deliveries.count)", LogKey.environment: "\(environment.rawValue)",
                ])
            }
            return recording
        case .retry(let failure):
            let drawn = configuration.backoff.delay(afterAttempt: job.attempts)
            // Retry-After is honoured, up to an hour or the backoff cap if that is longer.
            let delay = max(drawn, min(failure.notBefore ?? 0, max(configuration.backoff.maximum, 3600)))
            let recording = try await store.recordRetry(
                job, failure: failure, delay: delay, maxAttempts: configuration.maxAttempts, attempt: attempt)
            metrics.retry(errorClass: failure.errorClass)
            if recording == .recorded(state: "failed") { metrics.jobFinished(state: "failed", outcome: .failed) }
            let level: Logger.Level = recording == .recorded(state: "failed") ? .error : .warning
            logger.log(level: level, "attempt failed", metadata: [
                LogKey.errorClass: "\(failure.errorClass)", LogKey.error: "\(failure.reason)",
                "next": recording == .recorded(state: "failed") ? "none: attempts exhausted" : "in \(String(format: "%.1f", delay)) s",
            ])
            return recording
        case .reject(let reason):
            logger.notice("receipt rejected by Apple", metadata: [LogKey.error: "\(reason)"])
            metrics.jobFinished(state: "failed", outcome: .invalid)
            return try await store.recordRejection(job, reason: reason, attempt: attempt)
        }
    }
}
