/// What `receiptd cancel` did.
package struct CancelResult: Sendable, Codable, Equatable {
    /// The order whose job was cancelled.
    package var orderID: String
    /// The job now `cancelled`.
    package var jobID: Int64
}
