extension DispatcherStateMachine {
    /// The daemon settings the dispatcher decides by.
    struct Settings: Sendable {
        /// Most jobs in flight at once (`RECEIPTD_CONCURRENCY`).
        var concurrency: Int
        /// Most jobs one claim takes.
        var claimBatchSize: Int
        /// How receipt jobs are verified, and so which store API they need.
        var receipts: ReceiptVerifierChoice
        /// When a store API counts as failing, and its cool-downs.
        var circuitBreaker: CircuitBreaker.Configuration
        /// How long claims wait for `LISTEN` before polling alone keeps orders moving (5 poll intervals).
        var listenWait: Duration
        /// How long jobs in flight may finish after shutdown began (`RECEIPTD_SHUTDOWN_GRACE`).
        var shutdownGrace: Duration
    }
}
