import Foundation
import Logging
import ServiceLifecycle

/// Answers the stores' refund requests (`iap.refund_requests`), in every daemon: writes the refund limit, expires
/// requests past their deadline, answers by policy those the game left waiting (`RECEIPTD_REFUND_GAME_WAIT`), and
/// sends each `answering` row through its store's channel (Apple with the Server API key, Google with its service
/// account), retried with backoff until the store takes it, refuses it for good, or the deadline passes. A row is
/// claimed for the daemon's lease, renewed before each call, so a daemon that dies mid-call leaves it to the next.
/// A call that may have reached the store (its daemon lost the lease, or no answer came) earns one more call and no
/// other: the store is told twice at most, and keeps the first answer; the row ends `unconfirmed` when that call is
/// not confirmed either (``RefundAnswerStep``).
package final class RefundAnswerer: Service {
    private let queue: any RefundAnswerQueue
    private let channels: [any RefundAnswerChannel]
    private let refunds: RefundConfiguration
    private let backoff: Backoff
    private let pollInterval: Duration
    private let lease: Duration
    private let logger: Logger
    private let metrics: ReceiptdMetrics

    init(
        queue: any RefundAnswerQueue,
        channels: [any RefundAnswerChannel],
        refunds: RefundConfiguration,
        backoff: Backoff,
        pollInterval: Duration,
        lease: Duration,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.queue = queue
        self.channels = channels
        self.refunds = refunds
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.lease = lease
        self.logger = logger
        self.metrics = metrics
    }

    /// Polls for owed answers until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        var limitPublished = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var full = false
            do {
                if !limitPublished {
                    try await queue.publishRefundAbuseLimit(refunds.abuseLimit)
                    limitPublished = true
                }
                for expired in try await queue.expireRefundRequests() {
                    metrics.refundRequestExpired(store: expired.store.rawValue)
                    logger.error(
                        "a refund request reached its deadline unanswered; the store decides without it",
                        metadata: [
                            "request": "\(expired.requestID)", "store": "\(expired.store.rawValue)",
                            "transaction": "\(expired.transactionID)",
                        ]
                    )
                }
                let decided = try await queue.answerByPolicy(RefundPolicy(configuration: refunds), limit: Self.batch)
                if decided > 0 {
                    logger.info(
                        "refund requests the game left waiting answered by policy",
                        metadata: ["requests": "\(decided)"]
                    )
                }
                for channel in channels {
                    let owed = try await queue.claimRefundAnswers(store: channel.store, limit: Self.batch, lease: lease)
                    for row in owed { await answer(row, through: channel) }
                    full = full || owed.count == Self.batch
                }
            } catch {
                logger.warning(
                    "refund answers: the database is unavailable; trying again",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            if full { continue }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
        }
    }

    private static let batch = 20

    private func answer(_ owed: OwedRefundAnswer, through channel: any RefundAnswerChannel) async {
        do {
            guard try await queue.renewRefundAnswerLease(owed, lease: lease) else { return }
        } catch {
            logger.warning(
                "could not renew a refund answer's lease; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
            return
        }
        let call = channel.prepare(owed)
        let outcome = await channel.send(call, for: owed)
        let store = channel.store.rawValue
        let metadata: Logger.Metadata = [
            "store": "\(store)", "request": "\(owed.requestID)", "transaction": "\(owed.transactionID)",
        ]
        do {
            switch RefundAnswerStep.after(outcome, earlierCallPossiblySent: owed.possiblySent) {
            case .answered:
                try await queue.markRefundAnswerSent(owed, deliveryStatus: call.deliveryStatus, body: call.body)
                metrics.refundAnswerCall(store: store, result: .sent)
                metrics.refundRequestAnswered(
                    store: store,
                    answeredBy: owed.answeredBy.rawValue,
                    preference: owed.preference.rawValue
                )
                logger.info(
                    "refund answer sent to the store",
                    metadata: metadata.merging([
                        "preference": "\(owed.preference.rawValue)", "answered_by": "\(owed.answeredBy.rawValue)",
                    ]) { $1 }
                )
            case .postpone(let delay):
                try await queue.postponeRefundAnswer(owed, after: delay)
            case .retry(let reason, let notBefore, let possiblySent):
                let delay = max(backoff.delay(afterAttempt: owed.attempts), notBefore ?? .zero)
                try await queue.recordRefundAnswerRetry(owed, after: delay, error: reason, possiblySent: possiblySent)
                metrics.refundAnswerCall(store: store, result: .retry)
                logger.warning(
                    possiblySent
                        ? "refund answer got no answer and may have reached the store; sending it once more"
                        : "refund answer not taken; retrying",
                    metadata: metadata.merging([
                        LogKey.error: "\(reason)", "next": "in \(String(format: "%.1f", delay.seconds)) s",
                    ]) { $1 }
                )
            case .failed(let reason):
                try await queue.markRefundAnswerFailed(owed, error: reason)
                metrics.refundAnswerCall(store: store, result: .failed)
                logger.error(
                    "the store refused the refund answer for good",
                    metadata: metadata.merging([LogKey.error: "\(reason)"]) { $1 }
                )
            case .unconfirmed(let reason):
                try await queue.markRefundAnswerUnconfirmed(owed, error: reason)
                metrics.refundAnswerCall(store: store, result: .unconfirmed)
                logger.error(
                    "a refund answer was sent twice without a confirmation; the store may have it, and is not called again",
                    metadata: metadata.merging([LogKey.error: "\(reason)"]) { $1 }
                )
            }
        } catch {
            // The lease returns the row; a second answer to the same request does no harm.
            logger.warning(
                "could not record a refund answer; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }
}
