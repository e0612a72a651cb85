import Foundation
import Logging
import ServiceLifecycle

/// Names players to Apple: works off the `pending` rows of `iap.app_account_token_calls` (an operator assigned an App
/// Store payment without an app account token to an order that has one), calling Set App Account Token in the
/// purchase's environment through the App Store Server API's shared pacing, retried with backoff until Apple takes
/// it (200) or refuses it for good (another 4xx: a family-shared purchase, an id that is not an original one). A row
/// is claimed for the daemon's lease, renewed before each call, so a daemon that dies mid-call leaves it to the next.
package final class AppAccountTokenSetter: Service {
    private let queue: any AppAccountTokenQueue
    private let client: ServerAPIClient
    private let backoff: Backoff
    private let pollInterval: Duration
    private let lease: Duration
    private let logger: Logger

    init(
        queue: any AppAccountTokenQueue,
        client: ServerAPIClient,
        backoff: Backoff,
        pollInterval: Duration,
        lease: Duration,
        logger: Logger
    ) {
        self.queue = queue
        self.client = client
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.lease = lease
        self.logger = logger
    }

    /// Polls for owed calls until graceful shutdown; a call in flight finishes first.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let owed = try await queue.claimAppAccountTokenCalls(limit: Self.batch, lease: lease)
                for row in owed { await call(row) }
                if owed.count == Self.batch { continue }
            } catch {
                logger.warning(
                    "app account tokens: the database is unavailable; trying again",
                    metadata: [LogKey.error: "\(error)"]
                )
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
        }
    }

    private static let batch = 20

    private func call(_ owed: OwedAppAccountTokenCall) async {
        do {
            guard try await queue.renewAppAccountTokenLease(owed, lease: lease) else { return }
        } catch {
            logger.warning(
                "could not renew an app account token call's lease; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
            return
        }
        let outcome = await client.setAppAccountToken(
            owed.appAccountToken,
            originalTransactionID: owed.originalTransactionID,
            environment: owed.environment
        )
        let metadata: Logger.Metadata = [
            "transaction": "\(owed.transactionID)", "original_transaction": "\(owed.originalTransactionID)",
            "environment": "\(owed.environment.rawValue)",
        ]
        do {
            switch outcome.answer {
            case .found:
                try await queue.markAppAccountTokenSent(owed)
                logger.info("Apple recorded the player's app account token for the purchase", metadata: metadata)
            case .verdict(.postpone(let delay, _)):
                try await queue.postponeAppAccountToken(owed, after: delay)
            case .verdict(.retry(let failure)):
                let delay = max(backoff.delay(afterAttempt: owed.attempts), failure.notBefore ?? .zero)
                try await queue.recordAppAccountTokenRetry(owed, after: delay, error: failure.reason)
                logger.warning(
                    "Set App Account Token not taken; retrying",
                    metadata: metadata.merging([
                        LogKey.error: "\(failure.reason)", "next": "in \(String(format: "%.1f", delay.seconds)) s",
                    ]) { $1 }
                )
            case .verdict(let verdict):
                let reason = if case .reject(let why) = verdict { why } else { "\(outcome.label): unexpected answer" }
                try await queue.markAppAccountTokenFailed(owed, error: reason)
                logger.error(
                    "Apple refused to set the app account token for good",
                    metadata: metadata.merging([LogKey.error: "\(reason)"]) { $1 }
                )
            }
        } catch {
            // The lease returns the row; setting the same token twice does no harm.
            logger.warning(
                "could not record an app account token call; its lease returns it",
                metadata: [LogKey.error: "\(error)"]
            )
        }
    }
}
