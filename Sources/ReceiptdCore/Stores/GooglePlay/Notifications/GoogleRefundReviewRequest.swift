/// A chargeback Google asks the developer to review (`pendingRefundReviewNotification`): a row of
/// `iap.refund_requests` with `store` `google`, due 24 hours after the event.
package struct GoogleRefundReviewRequest: Sendable, Equatable {
    /// `pendingRefundToken`: the request's id, and what the answer must carry.
    package var token: String
    /// The disputed order; its first line's ledger id.
    package var orderID: String
    /// Google's `refundReason` code, as text, when given.
    package var reason: String?
    /// The buyer's `obfuscatedAccountId`, which names the player when the ledger does not.
    package var accountID: String?
    /// The event's time, milliseconds since 1970: the deadline counts from it.
    package var eventTimeMilliseconds: Int64

    /// Creates one from the decoded notification.
    package init(token: String, orderID: String, reason: String?, accountID: String?, eventTimeMilliseconds: Int64) {
        self.token = token
        self.orderID = orderID
        self.reason = reason
        self.accountID = accountID
        self.eventTimeMilliseconds = eventTimeMilliseconds
    }
}
