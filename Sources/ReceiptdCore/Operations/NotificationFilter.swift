/// Which store notifications `receiptd notifications` lists.
package struct NotificationFilter: Sendable, Equatable {
    /// Only this store's (`apple`, `google`).
    package var store: String?
    /// Only this type (`REFUND`, `TEST`, …), compared without regard to case.
    package var type: String?
    /// Only those received since then.
    package var since: TimeBound?
    /// At most this many, newest first.
    package var limit: Int

    /// Creates a filter; with no arguments, the 50 newest notifications.
    package init(store: String? = nil, type: String? = nil, since: TimeBound? = nil, limit: Int = 50) {
        self.store = store
        self.type = type
        self.since = since
        self.limit = limit
    }
}
