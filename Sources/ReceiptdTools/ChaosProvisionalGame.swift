import Foundation
import ReceiptdCore

/// The game server's side of the chaos run's provisional grants: the players with a provisional grant owed or a
/// refuted one to take back are served as a game server serves a login. It grants what `iap.owed_deliveries`
/// lists (`provisional:<order_id>` and real rows alike), one `mark_granted` per row so it knows exactly what it
/// handed out, and marks refutations in `iap.owed_revocations` handled. Meanwhile an operator cancels the job of a
/// provisionally granted order (and retries it, so that the order still settles as planned), and the game closes
/// another: both grants are handed back (`provisional_cancelled`). At the end it checks that every grant ended
/// confirmed, refuted or cancelled (none stays unconfirmed), that one handed back is owed back or handled, that a
/// cancelled one cost the player no trust, and that nothing was owed twice.
struct ChaosProvisionalGame {
    /// Units the game handed out per order: under `provisional:<order_id>`, and as real ledger rows.
    private(set) var grantedUnits: [String: (provisional: Int, real: Int)] = [:]
    /// Provisionally granted orders whose job an operator cancelled (then retried), and those the game closed.
    private(set) var cancelledOrders: Set<String> = []
    private(set) var closedOrders: Set<String> = []
    /// At most this many of each: the other grants end confirmed or refuted.
    private static let interferences = 2

    /// One login of every player with a provisional grant owed or one handed back to take back, after the
    /// operator's and the game's interference.
    mutating func step(on connection: PostgresConnection) async throws {
        try await interfere(on: connection)
        let users = try await connection.execute(
            """
            SELECT DISTINCT user_id FROM iap.provisional_grants
            WHERE (state = 'unconfirmed' AND granted_at IS NULL)
               OR (state IN ('refuted', 'cancelled') AND revocation_handled_at IS NULL)
            """
        ).rows.compactMap { $0[0] }
        for user in users {
            let owed = try await connection.execute(
                "SELECT transaction_id, order_id, quantity, provisional FROM iap.owed_deliveries($1)",
                [user]
            ).namedRows
            for row in owed {
                let order = try row.string("order_id")
                // A row marked 0 was granted or replaced meanwhile (a grant confirmed): the game hands out nothing.
                let marked =
                    try await connection.execute(
                        "SELECT iap.mark_granted($1, ARRAY[$2]) AS n",
                        [order, try row.string("transaction_id")]
                    ).first?.int("n") ?? 0
                guard marked > 0 else { continue }
                let units = try row.int("quantity")
                if try row.bool("provisional") {
                    grantedUnits[order, default: (0, 0)].provisional += units
                } else {
                    grantedUnits[order, default: (0, 0)].real += units
                }
            }
            // Refuted and cancelled grants, and grants exchanged for real rows of other units: the game takes them
            // back.
            let handedBack = try await connection.execute(
                """
                SELECT transaction_id FROM iap.owed_revocations($1)
                WHERE revocation_reason IN ('provisional_refuted', 'provisional_cancelled', 'provisional_replaced')
                """,
                [user]
            ).rows.compactMap { $0[0] }
            for id in handedBack {
                try await connection.execute("SELECT iap.mark_revocation_handled(ARRAY[$1]::text[])", [id])
            }
        }
    }

    /// An operator cancels the job of the oldest provisionally granted order still verifying and retries it; the
    /// game closes the next one. An order a settle got to first (paid, or its job ended) is left alone.
    private mutating func interfere(on connection: PostgresConnection) async throws {
        guard cancelledOrders.count < Self.interferences || closedOrders.count < Self.interferences else { return }
        let candidates = try await connection.execute(
            """
            SELECT g.order_id FROM iap.provisional_grants g
            WHERE g.state = 'unconfirmed' AND EXISTS (
                SELECT 1 FROM iap.jobs j WHERE j.order_id = g.order_id AND j.state IN ('pending', 'running'))
            ORDER BY g.created_at, g.order_id LIMIT 2
            """
        ).rows.compactMap { $0[0] }
        for order in candidates {
            do {
                if cancelledOrders.count <= closedOrders.count, cancelledOrders.count < Self.interferences {
                    let cancelled =
                        try await connection.execute("SELECT iap.cancel_order($1) AS n", [order]).first?.int("n") ?? 0
                    guard cancelled == 1 else { continue }
                    cancelledOrders.insert(order)
                    try await connection.execute("SELECT iap.retry_order($1)", [order])
                } else if closedOrders.count < Self.interferences {
                    try await connection.execute("SELECT iap.close_order($1)", [order])
                    closedOrders.insert(order)
                }
            } catch let error as PostgresError where error.sqlState == "55000" || error.sqlState == "P0002" {
                // A settle got there first: the order has deliveries, or a job of its own again.
            }
        }
    }

    /// What the checks found once every job finished: the grants per state and every broken rule.
    func check(
        on connection: PostgresConnection
    ) async throws -> (
        granted: Int, confirmed: Int, refuted: Int, cancelled: Int, violations: [String]
    ) {
        let grants = try await connection.execute(
            """
            SELECT g.order_id, g.user_id, g.state, g.quantity, g.granted_at IS NOT NULL AS granted, g.replaced,
                   g.revocation_handled_at IS NOT NULL AS handled, o.delivered_quantity,
                   (SELECT count(*) FROM iap.deliveries d
                    WHERE d.order_id = g.order_id AND d.granted_at IS NULL AND d.revoked_at IS NULL) AS owed_rows,
                   EXISTS (SELECT 1 FROM iap.owed_revocations(g.user_id) r
                           WHERE r.transaction_id = 'provisional:' || g.order_id) AS revocation_owed,
                   EXISTS (SELECT 1 FROM iap.user_trust t
                           WHERE t.order_id = g.order_id AND t.reason = 'provisional_refuted') AS trust_lost
            FROM iap.provisional_grants g JOIN iap.orders o USING (order_id)
            ORDER BY g.order_id
            """
        ).namedRows
        var violations: [String] = []
        var states: [String: Int] = [:]
        for grant in grants {
            let order = try grant.string("order_id")
            let state = try grant.string("state")
            let granted = try grant.bool("granted")
            let replaced = try grant.bool("replaced")
            let owedRows = try grant.int("owed_rows")
            let handled = try grant.bool("handled")
            let revocationOwed = try grant.bool("revocation_owed")
            let delivered = try grant.int("delivered_quantity")
            let quantity = try grant.int("quantity")
            states[state, default: 0] += 1
            let units = grantedUnits[order] ?? (0, 0)
            switch state {
            case "confirmed" where replaced:
                // Exchanged for real rows of other units: the grant is handed back, the real rows are owed.
                if !handled, !revocationOwed {
                    violations.append("\(order): provisional grant replaced but neither owed back nor handled")
                }
            case "confirmed":
                // Granted under its provisional id, the order's real rows are the same units: the game must
                // never be handed them again.
                if granted, units.real > 0 || owedRows > 0 {
                    violations.append(
                        "\(order): provisional grant confirmed after the game granted it, yet its real rows were "
                            + "granted again (\(units.real) units) or are owed (\(owedRows) rows)"
                    )
                }
            case "refuted":
                if !handled, !revocationOwed {
                    violations.append("\(order): provisional grant refuted but neither owed back nor handled")
                }
                if units.real > delivered {
                    violations.append("\(order): refuted, yet the game granted \(units.real) real units")
                }
            case "cancelled":
                if !handled, !revocationOwed {
                    violations.append("\(order): provisional grant cancelled but neither owed back nor handled")
                }
                if !cancelledOrders.contains(order), !closedOrders.contains(order) {
                    violations.append("\(order): provisional grant cancelled, yet nobody cancelled or closed the order")
                }
                if try grant.bool("trust_lost") {
                    violations.append("\(order): provisional grant cancelled, yet the player lost their trust for it")
                }
            default:
                violations.append("\(order): provisional grant still \(state) after every job finished")
            }
            if units.provisional > quantity {
                violations.append("\(order): granted provisionally \(units.provisional) units, more than its grant")
            }
        }
        // The game's real rows: never more units than the ledger delivered to the order.
        let ledger = try await connection.execute(
            "SELECT order_id, sum(quantity) AS units FROM iap.deliveries GROUP BY order_id"
        ).namedRows
        var ledgerUnits: [String: Int] = [:]
        for row in ledger { ledgerUnits[try row.string("order_id")] = try row.int("units") }
        for (order, units) in grantedUnits.sorted(by: { $0.key < $1.key }) where units.real > ledgerUnits[order] ?? 0 {
            violations.append(
                "\(order): the game granted \(units.real) real units, the ledger holds \(ledgerUnits[order] ?? 0)"
            )
        }
        return (grants.count, states["confirmed"] ?? 0, states["refuted"] ?? 0, states["cancelled"] ?? 0, violations)
    }
}
