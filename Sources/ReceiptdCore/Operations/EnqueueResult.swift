/// What `receiptd enqueue` got back from `iap.enqueue_receipt`.
package struct EnqueueResult: Sendable, Codable, Equatable {
    /// The order.
    package var orderID: String
    /// The job id `enqueue_receipt` returned: the new job, the running job with the same receipt, or a full order's last job.
    package var jobID: Int64
}
