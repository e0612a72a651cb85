import ReceiptdCore

/// Every outcome of a load run, checked against what each order's kind must end as.
package struct LoadVerdict: Sendable, Codable {
    /// Orders of the run found in the database.
    package var orders: Int
    /// Orders that have an outcome.
    package var settled: Int
    /// Seconds from the first order's enqueue (`created_at`) to the last outcome (`outcome_at`).
    package var seconds: Double
    /// Settled orders per second over that span.
    package var ordersPerSecond: Double
    /// Orders per outcome (`none` for orders still without one).
    package var outcomes: [String: Int]
    /// Orders whose outcome is not what their kind must get, one line each.
    package var mismatches: [String]

    /// True when every order is settled as its kind requires.
    package var isCorrect: Bool { mismatches.isEmpty && settled == orders && orders > 0 }

    /// A few lines for a terminal.
    package var summary: String {
        let counts = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let shown = mismatches.prefix(10).joined(separator: "\n  ")
        return """
            settled \(settled)/\(orders) orders in \(LoadSummary.format(seconds)) s (enqueue → last outcome): \
            \(LoadSummary.format(ordersPerSecond)) orders/s
            outcomes: \(counts)
            verdict: \(isCorrect ? "every outcome matches the mix" : "MISMATCH (\(mismatches.count))\n  " + shown)
            """
    }

    /// Reads the run's orders and checks each against the kind coded in its id (see `LoadOrderFactory`).
    static func check(runID: String, connection: PostgresConnection) async throws -> LoadVerdict {
        let result = try await connection.execute(
            """
            SELECT order_id, coalesce(outcome::text, 'none') AS outcome,
                   extract(epoch FROM max(outcome_at) OVER () - min(created_at) OVER ())::float8 AS span
            FROM iap.orders WHERE order_id LIKE $1
            """,
            [LoadSummary.ordersPattern(runID: runID)]
        )
        var outcomes: [String: Int] = [:]
        var byOrder: [String: String] = [:]
        for row in result.namedRows {
            let outcome = try row.string("outcome")
            byOrder[try row.string("order_id")] = outcome
            outcomes[outcome, default: 0] += 1
        }
        let seconds = Double(result.first?["span"] ?? "") ?? 0
        let settled = byOrder.count - (outcomes["none"] ?? 0)
        return LoadVerdict(
            orders: byOrder.count,
            settled: settled,
            seconds: seconds,
            ordersPerSecond: seconds > 0 ? Double(settled) / seconds : 0,
            outcomes: outcomes,
            mismatches: mismatches(in: byOrder)
        )
    }

    private static func mismatches(in byOrder: [String: String]) -> [String] {
        var found: [String] = []
        for (order, outcome) in byOrder.sorted(by: { $0.key < $1.key }) {
            let expected: String
            switch order.suffix(2) {
            case "-f", "-r", "-t", "-g": expected = "full"
            case "-p": expected = "partial"
            case "-n": expected = "no_in_app"
            case "-a":
                let pair = [outcome, byOrder[String(order.dropLast()) + "b"] ?? "missing"].sorted()
                if pair != ["full", "unmatched"] {
                    found.append("\(order.dropLast(2)): replay pair ended \(pair), expected full + unmatched")
                }
                continue
            default: continue  // "-b" is checked with its "-a"
            }
            if outcome != expected { found.append("\(order): \(outcome), expected \(expected)") }
        }
        return found
    }
}
