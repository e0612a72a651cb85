/// One answer to a store's refund request owed, as claimed from `iap.refund_requests` (state `answering`).
package struct OwedRefundAnswer: Sendable, Equatable {
    /// The request's row: the id of its notification in `iap.store_notifications`.
    package var notificationID: Int64
    /// The store that asks, and is answered.
    package var store: Store = .apple
    /// Apple's `notificationUUID`, Google's `pendingRefundToken` (which Google's answer carries).
    package var requestID: String = ""
    /// The transaction asked about (Google: the disputed order's id).
    package var transactionID: String
    /// The environment the request came from, where Apple's answer goes.
    package var environment: StoreEnvironment
    /// Tries so far, this one included.
    package var attempts: Int
    /// Whether the ledger delivered the transaction and the game granted it, read when it was claimed.
    package var deliveredAndGranted: Bool
    /// The kind it was delivered as, if it was.
    package var kind: ProductKind? = nil
    /// The preference the game (or the policy, or an operator) gave.
    package var preference: RefundPreference = .none
    /// The consumption given with it, in thousandths of a percent.
    package var consumed: Int? = nil
    /// Who answered.
    package var answeredBy: RefundAnswerSource = .policy
    /// Whether an earlier call may have reached the store: it got no answer, or the daemon making it lost its lease.
    package var possiblySent = false
}
