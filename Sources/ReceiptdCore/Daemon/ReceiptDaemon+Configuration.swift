import Foundation

extension ReceiptDaemon {
    /// How the daemon claims, retries and shuts down; the documented defaults unless a field is set.
    package struct Configuration: Sendable {
        /// Store requests in flight at once (`RECEIPTD_CONCURRENCY`).
        package var concurrency = 64
        /// Attempts before an order is `failed` (`RECEIPTD_MAX_ATTEMPTS`).
        package var maxAttempts = 12
        /// Delay between attempts (`RECEIPTD_BACKOFF_BASE`, `RECEIPTD_BACKOFF_MAX`).
        package var backoff = Backoff()
        /// Poll period when no notification came (`RECEIPTD_POLL_INTERVAL`).
        package var pollInterval: Duration = .seconds(1)
        /// How long a purchase may predate its order (`RECEIPTD_PURCHASE_SKEW`).
        package var purchaseSkew: Duration = .seconds(300)
        /// The app's bundle id; a receipt of any other bundle is `invalid` (`APPLE_BUNDLE_ID`, required by
        /// `receiptd run`). Empty matches no receipt.
        package var expectedBundleID = ""
        /// Whether sandbox purchases deliver (`RECEIPTD_SANDBOX`).
        package var sandbox = SandboxPolicy.accept
        /// Whether a subscription another account presents moves to it (`RECEIPTD_SUBSCRIPTION_RESTORE`).
        package var subscriptionRestore = SubscriptionRestore.keep
        /// How long after the store refused a subscription's re-read for good it is read again
        /// (`RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`).
        package var subscriptionReadRetryInterval: Duration = .seconds(86_400)
        /// Purchases before this time are never recorded as unclaimed payments (`RECEIPTD_UNCLAIMED_SINCE`);
        /// `nil`: since `receiptd migrate` first ran on the database.
        package var unclaimedSince: Date? = nil
        /// A running job whose heartbeat is older than this goes back to `pending` (`RECEIPTD_LEASE`).
        package var lease: Duration = .seconds(60)
        /// On SIGTERM, how long requests in flight may finish (`RECEIPTD_SHUTDOWN_GRACE`).
        package var shutdownGrace: Duration = .seconds(25)
        /// Most jobs one claim statement takes.
        package var claimBatchSize = 100
        /// Every connection the daemon opens besides its `LISTEN` connection: claiming, settling, lease work,
        /// Google acknowledgements, the voided poll and Server API pacing (`RECEIPTD_DB_CONNECTIONS`). Eleven: the
        /// eight of the daemon's own pool and the three its Google workers opened before they shared it.
        package var databaseConnections = 11
        /// Finished jobs and their attempts older than this are deleted (`RECEIPTD_RETENTION`).
        package var retention: Duration = .seconds(30 * 86_400)
        /// Most jobs one retention pass deletes; small, so it never holds locks for long.
        package var retentionBatch = 500
        /// When a store API is failing, claiming its jobs pauses.
        package var circuitBreaker = CircuitBreaker.Configuration()
        /// How refund requests the game leaves unanswered are answered (`RECEIPTD_REFUND_*`).
        package var refunds = RefundConfiguration()

        /// What verified answers deliver under these settings.
        var planner: DeliveryPlanner {
            DeliveryPlanner(
                purchaseSkew: purchaseSkew,
                expectedBundleID: expectedBundleID,
                sandbox: sandbox,
                subscriptionRestore: subscriptionRestore
            )
        }

        /// Creates a configuration with the documented defaults.
        package init() {}
    }
}
