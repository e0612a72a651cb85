import Foundation
import ReceiptdCore

/// What one renewal storm measured (issue #48, items 3 and 4): renewals of seeded subscriptions posted to one
/// daemon's notification intake, timed until the store's completion condition held (``RenewalStorm``).
package struct RenewalStormFigures: Sendable, Codable {
    /// The store whose renewals these were.
    package var store: Store
    /// Renewals posted (each a notification of a new period of its own subscription).
    package var renewals: Int
    /// Client connections posting at once.
    package var connections: Int
    /// Seconds from the first post until the completion condition held (or the cap, when `timedOut`).
    package var seconds: Double
    /// Renewals settled per second end to end (`settled` over `seconds`).
    package var renewalsPerSecond: Double
    /// The goal for `renewalsPerSecond`.
    package var goalPerSecond: Double
    /// Seconds the posts took, from the first to the last answer.
    package var postingSeconds: Double
    /// Posts the intake answered 200.
    package var accepted: Int
    /// One post, from its send to its answer, in milliseconds.
    package var intakeP50Milliseconds, intakeP99Milliseconds: Double
    /// New periods delivered, each a ledger row of its `renewal:<transaction_id>` order, when the timing ended.
    package var settled: Int
    /// Subscriptions whose `entitled_until` had moved when the timing ended.
    package var moved: Int
    /// Subscriptions of the storm with a re-read still due when the timing ended.
    package var rereadsDue: Int
    /// The daemon's and PostgreSQL's CPU seconds per 1,000 renewals.
    package var daemonCPUSecondsPer1000, postgresCPUSecondsPer1000: Double
    /// Calls the daemon made to the store's stand-in while the storm ran.
    package var storeCalls: Int
    /// The daemon's peak resident set size (`VmHWM`), in bytes.
    package var daemonPeakRSSBytes: Int
    /// Whether every new period is exactly one delivered ledger row, of its own order.
    package var exactlyOnce: Bool
    /// New periods delivered more than once, or by another id or order: a wrong ledger, whatever the timing.
    package var deliveredWrongly: Int
    /// Whether the cap ran out before the completion condition held.
    package var timedOut: Bool
    /// The statements that cost PostgreSQL the most while the storm ran (`pg_stat_statements`).
    package var statements: [IdleDaemonCost.Statement]

    /// Store calls per renewal (goal: 0 for news that leaves nothing open).
    package var storeCallsPerRenewal: Double { renewals > 0 ? Double(storeCalls) / Double(renewals) : 0 }

    /// Whether every renewal settled, exactly once, within the cap.
    package var correct: Bool {
        !timedOut && exactlyOnce && settled == renewals && moved == renewals && rereadsDue == 0
    }

    /// The goal met, with every renewal settled exactly once.
    package var meetsGoal: Bool { correct && renewalsPerSecond >= goalPerSecond }
}
