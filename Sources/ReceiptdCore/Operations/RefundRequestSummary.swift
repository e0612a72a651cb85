/// One row of `iap.refund_requests` as operators see it: who asks about what, by when, and how it was answered.
package struct RefundRequestSummary: Sendable, Codable, Equatable {
    /// Apple's `notificationUUID` or Google's `pendingRefundToken`: what `receiptd refunds answer` names.
    package var requestID: String
    /// The store that asks.
    package var store: Store
    /// The transaction asked about (Google: the disputed order's id).
    package var transactionID: String
    /// The game's order, when the ledger delivered the transaction.
    package var orderID: String?
    /// The player, when known.
    package var userID: String?
    /// Why the store asks, when it says.
    package var reason: String?
    /// Where the request is.
    package var state: RefundRequestState
    /// Who answered, once answered.
    package var answeredBy: RefundAnswerSource?
    /// What the answer asks of the store, once answered.
    package var preference: RefundPreference?
    /// Thousandths of a percent consumed, as answered.
    package var consumedMilliunits: Int?
    /// Apple's `deliveryStatus` as sent.
    package var deliveryStatus: String?
    /// When it arrived (ISO-8601, UTC; so are the other times).
    package var receivedAt: String
    /// The store's deadline.
    package var answerBy: String
    /// When the store took the answer.
    package var answeredAt: String?
    /// The last failure, or why nothing was sent.
    package var lastError: String?
}

extension RefundRequestSummary {
    /// The columns the queries select from `iap.refund_requests r`, times as UTC text.
    static let columns = """
        r.request_id, r.store, r.transaction_id, r.order_id, r.user_id, r.reason, r.state, r.answered_by,
        r.preference, r.consumed_milliunits, r.delivery_status,
        \(OperatorQueries.utc("r.received_at")) AS received_at, \(OperatorQueries.utc("r.answer_by")) AS answer_by,
        \(OperatorQueries.utc("r.answered_at")) AS answered_at, r.last_error
        """

    /// Reads a row selected with `columns`.
    init(row: QueryResult.Row) throws {
        guard let store = Store(rawValue: try row.string("store")),
            let state = RefundRequestState(rawValue: try row.string("state"))
        else {
            throw PostgresError(kind: .query, message: "refund_requests: unknown store or state")
        }
        self.init(
            requestID: try row.string("request_id"),
            store: store,
            transactionID: try row.string("transaction_id"),
            orderID: row["order_id"],
            userID: row["user_id"],
            reason: row["reason"],
            state: state,
            answeredBy: row["answered_by"].flatMap(RefundAnswerSource.init(rawValue:)),
            preference: row["preference"].flatMap(RefundPreference.init(rawValue:)),
            consumedMilliunits: row.optionalInt("consumed_milliunits"),
            deliveryStatus: row["delivery_status"],
            receivedAt: try row.string("received_at"),
            answerBy: try row.string("answer_by"),
            answeredAt: row["answered_at"],
            lastError: row["last_error"]
        )
    }
}
