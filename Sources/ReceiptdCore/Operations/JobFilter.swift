/// Which jobs `receiptd jobs` lists.
public struct JobFilter: Sendable, Equatable {
    /// Only jobs in this state.
    public var state: JobState?
    /// Only this order's jobs.
    public var orderID: String?
    /// Only jobs created, started or finished since then.
    public var since: TimeBound?
    /// At most this many, newest first.
    public var limit: Int

    /// Creates a filter; with no arguments, the 50 newest jobs.
    public init(state: JobState? = nil, orderID: String? = nil, since: TimeBound? = nil, limit: Int = 50) {
        self.state = state
        self.orderID = orderID
        self.since = since
        self.limit = limit
    }
}
