import Foundation
import Logging
import ServiceLifecycle

/// Answers refund requests: expires those past their deadline, answers by policy those the game left waiting
/// (`RECEIPTD_REFUND_GAME_WAIT`), and sends Apple's answers (`answering` rows of `iap.refund_requests`) as Send
/// Consumption Information v2 to the request's environment through the App Store Server API's shared pacing,
/// retried with backoff until Apple accepts (202) or refuses for good (another 4xx). A row is claimed for the
/// daemon's lease, renewed before each call, so a daemon that dies mid-call leaves it to the next.
package final class ConsumptionSender: Service {
    private let queue: any ConsumptionAnswerQueue
    private let client: ServerAPIClient
    private let refunds: RefundConfiguration
    private let backoff: Backoff
    private let pollInterval: Duration
    private let lease: Duration
    private let logger: Logger
    private let metrics: ReceiptdMetrics

    init(
        queue: any ConsumptionAnswerQueue,
        client: ServerAPIClient,
        refunds: RefundConfiguration,
        backoff: Backoff,
        pollInterval: Duration,
        lease: Duration,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.queue = queue
        self.client = client
        self.refunds = refunds
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.lease = lease
        self.logger = logger
        self.metrics = metrics
    }

    /// Polls for owed answers until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                for expired in try await queue.expireRefundRequests() {
                    logger.error(
                        "a refund request reached its deadline unanswered; the store decides without it",
                        metadata: [
                            "request": "\(expired.requestID)", "store": "\(expired.store)",
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
                let owed = try await queue.claimConsumptionRequests(limit: Self.batch, lease: lease)
                for row in owed { await answer(row) }
                if owed.count == Self.batch { continue }
            } catch {
                logger.warning(
                    "consumption answers: the database is unavailable; trying again",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
        }
    }

    private static let batch = 20

    private func answer(_ owed: OwedConsumptionAnswer) async {
        do {
            guard try await queue.renewConsumptionLease(owed, lease: lease) else { return }
        } catch {
            logger.warning(
                "could not renew a consumption answer's lease; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
            return
        }
        let information = ConsumptionInformation(
            deliveredAndGranted: owed.deliveredAndGranted,
            kind: owed.kind,
            consumed: owed.consumed,
            preference: owed.preference,
            sampleContentProvided: refunds.sampleContentProvided
        )
        let body = information.json
        let outcome = await client.sendConsumption(
            Data(body.utf8),
            transactionID: owed.transactionID,
            environment: owed.environment
        )
        let metadata: Logger.Metadata = [
            "transaction": "\(owed.transactionID)", "environment": "\(owed.environment.rawValue)",
        ]
        do {
            switch outcome.answer {
            case .found:
                try await queue.markConsumptionSent(owed, deliveryStatus: information.deliveryStatus, body: body)
                metrics.consumptionAnswer(.sent)
                logger.info(
                    "consumption information sent to Apple",
                    metadata: metadata.merging(["delivery": "\(information.deliveryStatus)"]) { $1 }
                )
            case .verdict(.postpone(let delay, _)):
                try await queue.postponeConsumption(owed, after: delay)
            case .verdict(.retry(let failure)):
                let delay = max(backoff.delay(afterAttempt: owed.attempts), failure.notBefore ?? .zero)
                try await queue.recordConsumptionRetry(owed, after: delay, error: failure.reason)
                metrics.consumptionAnswer(.retry)
                logger.warning(
                    "consumption information not taken; retrying",
                    metadata: metadata.merging([
                        LogKey.error: "\(failure.reason)", "next": "in \(String(format: "%.1f", delay.seconds)) s",
                    ]) { $1 }
                )
            case .verdict(let verdict):
                let reason = if case .reject(let why) = verdict { why } else { "\(outcome.label): unexpected answer" }
                try await queue.markConsumptionFailed(owed, error: reason)
                metrics.consumptionAnswer(.failed)
                logger.error(
                    "Apple refused the consumption information for good",
                    metadata: metadata.merging([LogKey.error: "\(reason)"]) { $1 }
                )
            }
        } catch {
            // The lease returns the row; a second answer to the same request does no harm.
            logger.warning(
                "could not record a consumption answer; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }
}
