import Logging
import ServiceLifecycle

/// Keeps the trust levels working in every daemon: writes the trust settings the database's triggers apply
/// (`iap.trust_policy`) at start, and, with `RECEIPTD_PROVISIONAL=on`, grants provisionally every
/// `grantInterval` the orders of trusted players whose store holds them up (`iap.grant_provisional`; one daemon
/// at a time). Confirming and refuting grants needs no worker: the database does it as verification ends.
package final class TrustKeeper: Service {
    private let queue: any TrustQueue
    private let trust: TrustConfiguration
    private let receiptAPI: StoreAPI
    private let logger: Logger
    private let metrics: ReceiptdMetrics

    /// Creates the keeper; receipts are verified through `receiptAPI` (`RECEIPTD_RECEIPT_VERIFIER`).
    package init(
        queue: any TrustQueue,
        trust: TrustConfiguration,
        receiptAPI: StoreAPI,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) {
        self.queue = queue
        self.trust = trust
        self.receiptAPI = receiptAPI
        self.logger = logger
        self.metrics = metrics
    }

    /// Publishes the settings, then grants until graceful shutdown.
    package func run() async throws {
        // The gauges on their own schedule: the loop below may sleep an hour while grants are off.
        async let figures: Void = refreshFigures()
        var database = ReconnectBackoff()
        var published = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                if !published {
                    try await queue.publishTrustPolicy(trust)
                    published = true
                }
                let granted =
                    trust.provisional == .on ? try await queue.grantProvisional(trust, receiptAPI: receiptAPI) : []
                for grant in granted {
                    logger.notice(
                        "order granted provisionally: its player is trusted and its store holds it up",
                        metadata: [
                            LogKey.orderID: "\(grant.orderID)", "user_id": "\(grant.userID)",
                            "store": "\(grant.store.rawValue)", "cause": "\(grant.cause.rawValue)",
                        ]
                    )
                    metrics.provisionalGrant(store: grant.store, cause: grant.cause)
                }
                if database.succeeded() { logger.notice("trust levels: database reachable again") }
            } catch {
                if database.failed() {
                    logger.error(
                        "trust levels: could not write the settings or grant (database unreachable?); trying again",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
            }
            // With grants off the keeper only waits for shutdown (a service that returns would stop the daemon).
            let pause = trust.provisional == .on || !published ? trust.grantInterval : .seconds(3600)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
        }
        await figures
    }

    /// How often the gauges of provisional grants and untrusted players are refreshed.
    package static let figuresInterval: Duration = .seconds(15)

    /// Sets the gauges from `iap.provisional_grants` and `iap.user_trust` every `figuresInterval` until shutdown;
    /// a failed read keeps the last values (the loop above reports an unreachable database).
    private func refreshFigures() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                metrics.trustFigures(try await queue.trustFigures())
            } catch {
                logger.debug("trust levels: could not read the figures", metadata: [LogKey.error: "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.figuresInterval) }
        }
    }
}
