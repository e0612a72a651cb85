/// What `receiptd retry --failed --since T` did for each failed or invalid order.
public struct BulkRetryResult: Sendable, Codable, Equatable {
    /// An order that was left alone, and why.
    public struct Skipped: Sendable, Codable, Equatable {
        /// The order.
        public var orderID: String
        /// The database's refusal, e.g. the order already has an active job.
        public var reason: String
    }

    /// Orders that got a fresh job, oldest outcome first.
    public var retried: [RetryResult]
    /// Orders that did not.
    public var skipped: [Skipped]
}
