/// The console overview's two charts: orders settled per 10 minutes by outcome, and retries by error class and
/// store, both over the last 24 hours.
package struct OverviewSeries: Sendable, Codable, Equatable {
    /// Orders that reached one outcome within one 10-minute bucket.
    package struct Settled: Sendable, Codable, Equatable {
        /// The bucket's start (ISO-8601, UTC, a multiple of 10 minutes).
        package var bucket: String
        /// An `iap.outcome` value.
        package var outcome: String
        /// Orders whose outcome was set in the bucket.
        package var orders: Int
    }

    /// Attempts answered with a retry, of one error class and one store.
    package struct Retries: Sendable, Codable, Equatable {
        /// `transport`, `http`, `garbled`, … (`unclassified` when none was recorded).
        package var errorClass: String
        /// `apple` or `google` (by the job's kind).
        package var store: String
        /// Attempts with result `retry`.
        package var retries: Int
        /// Distinct jobs they belong to.
        package var jobs: Int
    }

    /// The chart's window starts here (ISO-8601, UTC): 24 hours before the snapshot, rounded down to 10 minutes.
    package var since: String
    /// The database's time when it was read.
    package var now: String
    /// Settled orders by bucket and outcome, oldest bucket first; empty buckets are left out.
    package var settled: [Settled]
    /// Retries by error class and store, most first.
    package var retries: [Retries]
}
