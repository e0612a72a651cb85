/// Jobs due now and how long the oldest of them has waited, for the queue gauges.
package struct QueueDepth: Sendable, Equatable {
    /// Pending jobs whose `run_at` has come.
    package var due: Int
    /// How long the oldest of them has been due.
    package var oldestDueAge: Duration
}
