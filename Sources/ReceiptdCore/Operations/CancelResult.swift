/// What `receiptd cancel` did.
public struct CancelResult: Sendable, Codable, Equatable {
    /// The order whose job was cancelled.
    public var orderID: String
    /// The job now `cancelled`.
    public var jobID: Int64
}
