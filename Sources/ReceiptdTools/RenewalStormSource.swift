import Foundation
import ReceiptdCore

/// One store's part of a renewal storm (``RenewalStorm``): which seeded subscriptions renew, the requests that tell the
/// daemon so (every one prepared, signed, before the timing starts), what the daemon needs besides the stand-ins, when
/// the storm has settled, and how many store calls it cost.
package protocol RenewalStormSource: Sendable {
    /// The store whose subscriptions renew.
    var store: Store { get }
    /// What the progress lines call it.
    var name: String { get }
    /// The intake path the requests are posted to (`/notifications/apple`, `/notifications/google`).
    var intakePath: String { get }
    /// The goal, in renewals per second end to end.
    var goalPerSecond: Double { get }

    /// Picks up to `renewals` seeded subscriptions of the store that no earlier run renewed, and prepares one request
    /// per renewal and the period each one pays.
    func prepare(renewals: Int, context: RenewalStorm.Context) async throws -> RenewalStorm.Plan

    /// What the daemon's environment needs beyond the stand-ins' settings, the intake's and the trusted proxy.
    func daemonEnvironment(context: RenewalStorm.Context) -> [String: String]

    /// How far the storm has settled (the rows of `plan`'s renewals are in `RenewalStorm.table`).
    func progress(connection: PostgresConnection) async throws -> RenewalStorm.Progress

    /// The calls the daemon has made to the store's stand-in so far.
    func storeCalls(context: RenewalStorm.Context) -> Int
}

extension RenewalStormSource {
    /// "apple renewal storm".
    package var name: String { "\(store.rawValue) renewal storm" }

    /// Nothing beyond the stand-ins' settings.
    package func daemonEnvironment(context: RenewalStorm.Context) -> [String: String] { [:] }

    /// The condition: every new period a delivered ledger row of its `renewal:<transaction_id>` order, every
    /// subscription's `entitled_until` moved, no re-read of them still due.
    package func progress(connection: PostgresConnection) async throws -> RenewalStorm.Progress {
        try await RenewalStorm.ledgerProgress(store: store, connection: connection)
    }
}
