import Logging
import ServiceLifecycle

/// Processes the recorded store notifications (`iap.store_notifications` rows without `processed_at`), in every
/// daemon: each pass claims a batch no other daemon holds and applies each notification's action with its
/// `processed_at` in one transaction, so a crash anywhere loses nothing and applies nothing twice. A new
/// notification's `NOTIFY iap_store_notification` rings `doorbell` (the daemon's listener hears it); without one it
/// polls every `RECEIPTD_POLL_INTERVAL` (one indexed query when nothing is due): the database is the truth.
package final class NotificationProcessor: Service {
    private let queue: any NotificationProcessing
    private let planner: NotificationPlanner
    private let interval: Duration
    private let backoff: Backoff
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    private let doorbell: Doorbell
    /// Most notifications one pass takes.
    package static let batchSize = 32

    /// Creates a processor on `queue`, passing when `doorbell` rings or every `interval`, putting off transient
    /// failures by `backoff`; `rereadsSubscriptions` when subscriptions are read again from the App Store.
    package init(
        queue: any NotificationProcessing,
        rereadsSubscriptions: Bool = false,
        interval: Duration,
        backoff: Backoff,
        logger: Logger,
        metrics: ReceiptdMetrics,
        doorbell: Doorbell = Doorbell()
    ) {
        self.doorbell = doorbell
        self.queue = queue
        planner = NotificationPlanner(rereadsSubscriptions: rereadsSubscriptions)
        self.interval = interval
        self.backoff = backoff
        self.logger = logger
        self.metrics = metrics
    }

    /// Processes until graceful shutdown.
    package func run() async throws {
        var database = ReconnectBackoff()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await processDue()
                if database.succeeded() { logger.notice("notification processing: database reachable again") }
            } catch {
                if database.failed() {
                    logger.error(
                        "notification processing failed (database unreachable?); trying again",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
            }
            // Graceful shutdown cancels the wait.
            await cancelWhenGracefulShutdown { await self.doorbell.wait(upTo: self.interval) }
        }
    }

    /// Sweeps revocations that raced a settle, then passes until nothing due is left; returns what it processed.
    @discardableResult
    package func processDue() async throws -> [ProcessedNotification] {
        let swept = try await queue.sweepRevokedTransactions()
        if swept > 0 {
            logger.notice(
                "revoked ledger rows delivered while their revocation was recorded",
                metadata: ["rows": "\(swept)"]
            )
        }
        var all: [ProcessedNotification] = []
        while !Task.isCancelled {
            let processed = try await queue.processNotifications(
                limit: Self.batchSize,
                planner: planner,
                backoff: backoff
            )
            for notification in processed {
                if let result = notification.result {
                    metrics.storeNotification(store: notification.store, type: notification.type, result: result)
                    if [.consumptionRequested, .consumptionNotConsented, .refundReviewRequested].contains(result) {
                        metrics.refundRequestReceived(store: notification.store)
                    }
                    if result == .failed {
                        logger.warning(
                            "store notification could not be processed; its row's error says why",
                            metadata: ["store": "\(notification.store)", "type": "\(notification.type)"]
                        )
                    }
                } else {
                    logger.info(
                        "store notification put off (a transient failure, or a pending purchase no order matches)",
                        metadata: ["store": "\(notification.store)", "type": "\(notification.type)"]
                    )
                }
            }
            all += processed
            // A full batch may have left more due (and the next of a transaction waits for the pass after its
            // predecessor's); a pass that only put notifications off would spin on them.
            guard processed.count == Self.batchSize || processed.contains(where: { $0.result != nil }) else { break }
        }
        return all
    }
}
