/// Where the refund answers are decided and found (`iap.refund_requests`) and what came of them recorded, part of
/// the queue seam: `PostgresJobQueue` implements it.
package protocol ConsumptionAnswerQueue: Sendable {
    /// Requests still unanswered at their deadline become `expired`; returns them for the log.
    func expireRefundRequests() async throws -> [ExpiredRefundRequest]
    /// Up to `limit` `waiting` requests whose game time (`gameWait`, at the latest two hours before the deadline)
    /// is over are answered by `policy` from the ledger's facts: `answering`, `answered_by` `policy`. Returns how
    /// many.
    func answerByPolicy(_ policy: RefundPolicy, limit: Int) async throws -> Int
    /// Claims up to `limit` due `answering` Apple requests that no other daemon holds, for `lease`, counting the try.
    func claimConsumptionRequests(limit: Int, lease: Duration) async throws -> [OwedConsumptionAnswer]
    /// Renews the lease on `owed` before its call; false when it is no longer this daemon's or no longer owed.
    func renewConsumptionLease(_ owed: OwedConsumptionAnswer, lease: Duration) async throws -> Bool
    /// Apple accepted the answer: `answered`, with the delivery status and the body sent.
    func markConsumptionSent(_ owed: OwedConsumptionAnswer, deliveryStatus: String, body: String) async throws
    /// A transient failure: due again after `delay`, free for any daemon.
    func recordConsumptionRetry(_ owed: OwedConsumptionAnswer, after delay: Duration, error: String) async throws
    /// No Server API slot was free: due again after `delay`, the try not counted.
    func postponeConsumption(_ owed: OwedConsumptionAnswer, after delay: Duration) async throws
    /// Apple refused the answer for good: `failed`.
    func markConsumptionFailed(_ owed: OwedConsumptionAnswer, error: String) async throws
}

/// A refund request that reached its deadline unanswered.
package struct ExpiredRefundRequest: Sendable, Equatable {
    /// Apple's `notificationUUID` or Google's refund token.
    package var requestID: String
    /// `apple` or `google`.
    package var store: String
    /// The transaction asked about.
    package var transactionID: String
}
