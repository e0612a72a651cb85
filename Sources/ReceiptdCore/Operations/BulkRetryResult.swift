/// What `receiptd retry --failed --since T` did for each failed or invalid order.
package struct BulkRetryResult: Sendable, Codable, Equatable {
    /// An order that was left alone, and why.
    package struct Skipped: Sendable, Codable, Equatable {
        /// The order.
        package var orderID: String
        /// The database's refusal, e.g. the order already has an active job.
        package var reason: String
    }

    /// Orders that got a fresh job, oldest outcome first.
    package var retried: [RetryResult]
    /// Orders that did not.
    package var skipped: [Skipped]
}
