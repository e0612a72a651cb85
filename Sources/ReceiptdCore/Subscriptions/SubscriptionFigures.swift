/// The subscriptions at a glance, as `receiptd status` and the daemons' gauges show them.
package struct SubscriptionFigures: Sendable, Codable, Equatable {
    /// Subscriptions by state; a state with none is left out.
    package var byState: [SubscriptionState: Int] = [:]
    /// Subscriptions whose re-read is due for over a minute: the App Store Server API is not configured, failing, or
    /// paced behind other work.
    package var overdueReads = 0
    /// Subscriptions whose re-read the store refuses for good (`read_failing_since`): read again every
    /// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`, a renewal whose news was lost waits for it.
    package var failingReads = 0

    /// No subscriptions.
    package init() {}

    /// The counts in rows of (`state`, `count`, `overdue`, `failing`), read by `query`.
    package static let query = """
        SELECT state, count(*) AS count, 0::bigint AS overdue, 0::bigint AS failing FROM iap.subscriptions GROUP BY state
        UNION ALL
        SELECT NULL, 0, count(*), 0 FROM iap.subscriptions WHERE read_due_at < now() - interval '1 minute'
        UNION ALL
        SELECT NULL, 0, 0, count(*) FROM iap.subscriptions WHERE read_failing_since IS NOT NULL
        """

    /// Reads the rows of `query`.
    init(rows: [QueryResult.Row]) throws {
        for row in rows {
            if let state = row["state"].flatMap(SubscriptionState.init(rawValue:)) {
                byState[state] = try row.int("count")
            } else if row["state"] == nil {
                overdueReads += try row.int("overdue")
                failingReads += try row.int("failing")
            }
        }
    }
}
