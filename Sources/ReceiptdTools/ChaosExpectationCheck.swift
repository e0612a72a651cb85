import ReceiptdCore

/// Compares one order (or replay pair) with what the chaos plan expects of it.
enum ChaosExpectationCheck {
    static func violations(
        of expectation: ChaosOrders.Expectation,
        order id: String,
        rows: [String: QueryResult.Row]
    ) -> [String] {
        guard let row = rows[id] else { return [] }  // reported as missing already
        let outcome = row["outcome"] ?? "none"
        let transactions = row["transactions"] ?? ""
        switch expectation {
        case .full(let transaction):
            return outcome == "full" && transactions == transaction
                ? [] : ["\(id): expected full with \(transaction), got \(outcome) [\(transactions)]"]
        case .partial(let transaction):
            return outcome == "partial" && transactions == transaction
                ? [] : ["\(id): expected partial, got \(outcome) [\(transactions)]"]
        case .noInApp:
            return outcome == "no_in_app" && transactions.isEmpty
                ? [] : ["\(id): expected no_in_app, got \(outcome) [\(transactions)]"]
        case .replaced(let first, let second):
            return outcome == "full" && (transactions == first || transactions == second)
                ? [] : ["\(id): expected full with \(first) or \(second), got \(outcome) [\(transactions)]"]
        case .replayPair(let otherID, let transaction):
            guard let other = rows[otherID] else { return [] }
            let pair = [(outcome, transactions), (other["outcome"] ?? "none", other["transactions"] ?? "")]
            let winners = pair.filter { $0 == ("full", transaction) }.count
            let losers = pair.filter { $0 == ("unmatched", "") }.count
            return winners == 1 && losers == 1
                ? [] : ["\(id)/\(otherID): replayed \(transaction) must pay exactly one: \(pair)"]
        }
    }
}
