import Foundation
import Logging
import ServiceLifecycle

/// Works off `iap.google_finalizations`: every delivered Google purchase is acknowledged (or consumed), with
/// retries and backoff, whichever daemon delivered it and whether or not that daemon is still alive. A row is
/// claimed for the daemon's lease, so a daemon that dies mid-call leaves it to the next; the lease is renewed
/// row by row before each call, so a batch slower than one lease never has a row acknowledged twice.
package final class GoogleFinalizer: Service {
    private let queue: any JobQueue
    private let client: GooglePlayClient
    private let backoff: Backoff
    private let pollInterval: Duration
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    /// How long a claimed row stays this daemon's (`RECEIPTD_LEASE`).
    private let lease: Duration

    init(
        queue: any JobQueue,
        client: GooglePlayClient,
        backoff: Backoff,
        pollInterval: Duration,
        lease: Duration,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.queue = queue
        self.client = client
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.lease = lease
        self.logger = logger
        self.metrics = metrics
    }

    /// Polls for owed calls until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let owed = try await queue.claimFinalizations(limit: Self.batch, lease: lease)
                for row in owed { await finalize(row) }
                metrics.googleFinalizationsOverdue(try await queue.overdueFinalizations())
                if owed.count == Self.batch { continue }
            } catch {
                logger.warning(
                    "Google acknowledgements: the database is unavailable; trying again",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
        }
    }

    private static let batch = 20

    private func finalize(_ owed: OwedFinalization) async {
        // Checked before each call, not once per batch: the row may have become another daemon's meanwhile.
        do {
            guard try await queue.renewFinalizationLease(owed, lease: lease) else {
                logger.debug(
                    "Google acknowledgement taken over by another daemon",
                    metadata: ["transaction": "\(owed.transactionID)"]
                )
                return
            }
        } catch {
            logger.warning(
                "could not renew a Google acknowledgement's lease; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
            return
        }
        var failure: String?
        do {
            // A retry may follow a call Google received from a daemon that died before recording it: ask first, so a
            // purchase is acknowledged once.
            if owed.attempts > 1, try await alreadyFinalized(owed) {
                try await queue.markFinalized(owed)
                return
            }
            let answer = try await client.finalize(owed.action, productID: owed.productID, token: owed.token)
            if !(200..<300).contains(answer.status) {
                failure =
                    "Google Play \(owed.action.rawValue): HTTP \(answer.status)"
                    + (answer.errorMessage.map { " (\($0))" } ?? "")
            }
        } catch {
            failure = "Google Play \(owed.action.rawValue): \(error)"
        }
        metrics.googleFinalization(action: owed.action, succeeded: failure == nil)
        do {
            if let failure {
                let delay = backoff.delay(afterAttempt: owed.attempts)
                logger.warning(
                    "Google acknowledgement failed; retrying",
                    metadata: [
                        LogKey.error: "\(failure)", "transaction": "\(owed.transactionID)",
                        "next": "in \(String(format: "%.1f", delay.seconds)) s",
                    ]
                )
                try await queue.recordFinalizationFailure(owed, retryAfter: delay, error: failure)
            } else {
                try await queue.markFinalized(owed)
            }
        } catch {
            // The lease returns the row; Google accepts a second acknowledgement.
            logger.warning(
                "could not record a Google acknowledgement; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }

    /// Whether Google already reports the purchase acknowledged (or consumed).
    private func alreadyFinalized(_ owed: OwedFinalization) async throws -> Bool {
        if owed.action == .acknowledgeSubscription {
            let answer = try await client.subscription(token: owed.token)
            return answer.status == 200 && answer.decoded(GoogleSubscriptionPurchase.self)?.acknowledged == true
        }
        let answer = try await client.purchase(token: owed.token)
        guard answer.status == 200, let purchase = answer.decoded(GoogleProductPurchase.self) else { return false }
        return purchase.finalizedBy.contains(owed.action)
    }
}
