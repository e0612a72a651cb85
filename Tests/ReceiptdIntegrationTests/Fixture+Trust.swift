import Foundation
import ReceiptdCore
import Testing

/// Trust levels and provisional grants: daemon settings that grant, and what the tests read back.
extension Fixture {
    /// Daemon settings with provisional grants on after 1 s (the shortest the operator may set), a limit of
    /// `limit` per player, and jobs that retry on through an outage.
    func provisionalSettings(
        limit: Int = 2,
        _ adjust: (inout ReceiptdSettings) -> Void = { _ in }
    ) -> ReceiptdSettings {
        settings {
            Self.provision(&$0)
            $0.trust.provisionalLimit = limit
            adjust(&$0)
        }
    }

    /// Turns provisional grants on in `settings` (after 1 s, looked for every 0.2 s), with jobs that retry on
    /// through an outage and a circuit breaker that probes again within a second.
    static func provision(_ settings: inout ReceiptdSettings) {
        settings.trust.provisional = .on
        settings.trust.provisionalAfter = .seconds(1)
        settings.trust.grantInterval = .milliseconds(200)
        settings.daemon.maxAttempts = 1_000
        settings.daemon.circuitBreaker.baseCooldown = .milliseconds(300)
        settings.daemon.circuitBreaker.maximumCooldown = .seconds(1)
    }

    /// The order's provisional grant (`state`, `cause`, `granted`, `refuted_by`, `user_id`, `quantity`), if any.
    func provisionalGrant(_ order: String) async throws -> QueryResult.Row? {
        try await connection.execute(
            """
            SELECT state, cause, granted_at IS NOT NULL AS granted, refuted_by::text AS refuted_by, user_id, quantity
            FROM iap.provisional_grants WHERE order_id = $1
            """,
            [order]
        ).first
    }

    /// Waits until the order has a provisional grant in `state`.
    func waitForGrant(_ order: String, state: String = "unconfirmed", timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout) { try await provisionalGrant(order)?["state"] == state }
    }

    /// The player's level in `store` as the rules see it (`iap.trust_of`): `trusted`, `streak`, `reason`,
    /// `order_id`, `recorded`, `unconfirmed_grants`.
    func trust(_ user: String, store: String = "apple") async throws -> QueryResult.Row {
        try await row("SELECT * FROM iap.trust_of($1) WHERE store = $2", [user, store])
    }

    /// `iap.set_trust` as an operator named `test`.
    func setTrust(_ user: String, store: String = "apple", trusted: Bool) async throws {
        try await connection.execute("SELECT iap.set_trust($1, $2, $3, 'test')", [user, store, trusted])
    }

    /// `iap.owed_deliveries(user)` as `transaction_id:provisional` strings, oldest first.
    func owed(_ user: String) async throws -> [String] {
        try await connection.execute(
            "SELECT transaction_id || ':' || provisional AS owed FROM iap.owed_deliveries($1)",
            [user]
        ).rows.compactMap { $0.first ?? nil }
    }

    /// The order's `status`.
    func status(_ order: String) async throws -> String? {
        try await value("SELECT status FROM iap.orders WHERE order_id = $1", [order])
    }

    /// The job of `order` has failed at least `attempts` times and is still waiting for its store.
    func waitUntilFailing(_ order: String, attempts: Int = 2, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil(timeout: timeout) {
            let row = try await self.order(order)
            return row["state"] == "pending" && (Int(row["attempts"] ?? "") ?? 0) >= attempts
        }
    }
}
