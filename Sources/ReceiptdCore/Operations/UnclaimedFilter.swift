/// Which unclaimed payments the console lists: each field narrows the list, `nil` leaves it open.
package struct UnclaimedFilter: Sendable, Equatable {
    /// `apple` or `google`.
    package var store: String?
    /// The user whose receipt carried the payment.
    package var userID: String?
    /// One payment, by its transaction id.
    package var transactionID: String?
    /// Also those already delivered to an order.
    package var includeAssigned: Bool
    /// At most this many, newest first.
    package var limit: Int

    /// A filter with the given values; by default the 200 newest payments not yet assigned.
    package init(
        store: String? = nil,
        userID: String? = nil,
        transactionID: String? = nil,
        includeAssigned: Bool = false,
        limit: Int = 200
    ) {
        self.store = store
        self.userID = userID
        self.transactionID = transactionID
        self.includeAssigned = includeAssigned
        self.limit = limit
    }
}
