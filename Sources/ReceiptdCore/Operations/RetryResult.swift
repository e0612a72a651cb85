/// A fresh job made by `receiptd retry`.
public struct RetryResult: Sendable, Codable, Equatable {
    /// The order retried.
    public var orderID: String
    /// The new pending job.
    public var jobID: Int64
}
