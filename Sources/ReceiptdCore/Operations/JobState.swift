/// The values of `iap.jobs.state`.
package enum JobState: String, Sendable, Codable, CaseIterable {
    /// Waiting for its first try, or for its next retry at `run_at`.
    case pending
    /// Claimed by a daemon, which is asking Apple.
    case running
    /// Apple's answer was recorded and the order settled.
    case succeeded
    /// Rejected by Apple, or out of attempts.
    case failed
    /// Replaced by a newer receipt, or closed because another receipt paid its order.
    case superseded
    /// Cancelled by an operator.
    case cancelled
}
