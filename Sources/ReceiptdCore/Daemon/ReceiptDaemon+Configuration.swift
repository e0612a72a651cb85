import Foundation

extension ReceiptDaemon {
    /// How the daemon claims, retries and shuts down. Durations are seconds.
    package struct Configuration: Sendable {
        /// Apple requests in flight at once (`RECEIPTD_CONCURRENCY`).
        package var concurrency: Int
        /// Attempts before an order is `failed` (`RECEIPTD_MAX_ATTEMPTS`).
        package var maxAttempts: Int
        /// Delay between attempts (`RECEIPTD_BACKOFF_BASE`, `RECEIPTD_BACKOFF_MAX`).
        package var backoff: Backoff
        /// Poll period when no notification came (`RECEIPTD_POLL_INTERVAL`).
        package var pollInterval: Double
        /// How long a purchase may predate its order (`RECEIPTD_PURCHASE_SKEW`).
        package var purchaseSkew: Double
        /// The app's bundle id; a receipt of any other bundle is `invalid` (`APPLE_BUNDLE_ID`, required by
        /// `receiptd run`). Empty matches no receipt.
        package var expectedBundleID: String
        /// Whether sandbox purchases deliver (`RECEIPTD_SANDBOX`).
        package var sandbox: SandboxPolicy
        /// Purchases before this time are never recorded as unclaimed payments (`RECEIPTD_UNCLAIMED_SINCE`);
        /// `nil`: since `receiptd migrate` first ran on the database.
        package var unclaimedSince: Date? = nil
        /// A running job whose heartbeat is older than this goes back to `pending` (`RECEIPTD_LEASE`).
        package var lease: Double
        /// On SIGTERM, how long requests in flight may finish (`RECEIPTD_SHUTDOWN_GRACE`).
        package var shutdownGrace: Double
        /// Most jobs one claim statement takes.
        package var claimBatchSize: Int
        /// Database connections for claiming and recording (the listener has its own; `RECEIPTD_DB_CONNECTIONS`).
        package var databaseConnections: Int
        /// Finished jobs and their attempts older than this many seconds are deleted (`RECEIPTD_RETENTION`).
        package var retention: Double
        /// Most jobs one retention pass deletes; small, so it never holds locks for long.
        package var retentionBatch: Int
        /// When Apple is failing, claiming pauses.
        package var circuitBreaker: CircuitBreaker.Configuration

        /// What verified answers deliver under these settings.
        var planner: DeliveryPlanner {
            DeliveryPlanner(purchaseSkewSeconds: purchaseSkew, expectedBundleID: expectedBundleID, sandbox: sandbox)
        }

        /// Creates a configuration with the documented defaults.
        package init(
            concurrency: Int = 64,
            maxAttempts: Int = 12,
            backoff: Backoff = Backoff(base: 2, maximum: 3600),
            pollInterval: Double = 1,
            purchaseSkew: Double = 300,
            expectedBundleID: String = "",
            sandbox: SandboxPolicy = .accept,
            lease: Double = 60,
            shutdownGrace: Double = 25,
            claimBatchSize: Int = 100,
            databaseConnections: Int = 8,
            circuitBreaker: CircuitBreaker.Configuration = .init(),
            retention: Double = 30 * 86_400,
            retentionBatch: Int = 500
        ) {
            self.retention = retention
            self.retentionBatch = retentionBatch
            self.circuitBreaker = circuitBreaker
            self.concurrency = concurrency
            self.maxAttempts = maxAttempts
            self.backoff = backoff
            self.pollInterval = pollInterval
            self.purchaseSkew = purchaseSkew
            self.expectedBundleID = expectedBundleID
            self.sandbox = sandbox
            self.lease = lease
            self.shutdownGrace = shutdownGrace
            self.claimBatchSize = claimBatchSize
            self.databaseConnections = databaseConnections
        }
    }
}
