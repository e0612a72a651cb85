/// Where the refund answers are decided and found (`iap.refund_requests`) and what came of them recorded, part of
/// the queue seam: `PostgresJobQueue` implements it.
package protocol RefundAnswerQueue: Sendable {
    /// Writes the refund limit the database's refund trigger applies (`RECEIPTD_REFUND_ABUSE_LIMIT`).
    func publishRefundAbuseLimit(_ limit: Int) async throws
    /// Requests still unanswered at their deadline become `expired`; returns them for the log.
    func expireRefundRequests() async throws -> [ExpiredRefundRequest]
    /// Up to `limit` `waiting` requests whose game time (`gameWait`, at the latest two hours before the deadline)
    /// is over are answered by `policy` from the ledger's facts: `answering`, `answered_by` `policy`. Returns how
    /// many.
    func answerByPolicy(_ policy: RefundPolicy, limit: Int) async throws -> Int
    /// Claims up to `limit` due `answering` requests of `store` that no other daemon holds, for `lease`, counting
    /// the try.
    func claimRefundAnswers(store: Store, limit: Int, lease: Duration) async throws -> [OwedRefundAnswer]
    /// Renews the lease on `owed` before its call; false when it is no longer this daemon's or no longer owed.
    func renewRefundAnswerLease(_ owed: OwedRefundAnswer, lease: Duration) async throws -> Bool
    /// The store took the answer: `answered`, with Apple's delivery status (Google has none) and the body sent.
    func markRefundAnswerSent(_ owed: OwedRefundAnswer, deliveryStatus: String?, body: String) async throws
    /// A transient failure: due again after `delay`, free for any daemon; `possiblySent` when the call got no answer,
    /// so that the next call is the last.
    func recordRefundAnswerRetry(
        _ owed: OwedRefundAnswer,
        after delay: Duration,
        error: String,
        possiblySent: Bool
    ) async throws
    /// No call slot was free: due again after `delay`, the try not counted.
    func postponeRefundAnswer(_ owed: OwedRefundAnswer, after delay: Duration) async throws
    /// The store refused the answer for good: `failed`.
    func markRefundAnswerFailed(_ owed: OwedRefundAnswer, error: String) async throws
    /// Two calls, neither confirmed: `unconfirmed`, never sent again.
    func markRefundAnswerUnconfirmed(_ owed: OwedRefundAnswer, error: String) async throws
}

/// A refund request that reached its deadline unanswered.
package struct ExpiredRefundRequest: Sendable, Equatable {
    /// Apple's `notificationUUID` or Google's refund token.
    package var requestID: String
    /// The store that asked.
    package var store: Store
    /// The transaction asked about.
    package var transactionID: String
}
