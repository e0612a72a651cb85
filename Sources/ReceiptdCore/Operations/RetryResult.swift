/// A fresh job made by `receiptd retry`.
package struct RetryResult: Sendable, Codable, Equatable {
    /// The order retried.
    package var orderID: String
    /// The new pending job.
    package var jobID: Int64
}
