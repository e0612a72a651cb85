/// Which jobs `receiptd jobs` lists.
package struct JobFilter: Sendable, Equatable {
    /// Only jobs in this state.
    package var state: JobState?
    /// Only this order's jobs.
    package var orderID: String?
    /// Only jobs created, started or finished since then.
    package var since: TimeBound?
    /// At most this many, newest first.
    package var limit: Int

    /// Creates a filter; with no arguments, the 50 newest jobs.
    package init(state: JobState? = nil, orderID: String? = nil, since: TimeBound? = nil, limit: Int = 50) {
        self.state = state
        self.orderID = orderID
        self.since = since
        self.limit = limit
    }
}
