import FakeAppStore
import Foundation
import ReceiptdCore

/// App Store subscriptions renewed through a chaos run's kills, restarts and outages, without a single notification:
/// each renewal is found by the daemons' re-read when the period before ends. The stand-in renews a subscription
/// once the ledger holds its latest period (Get All Subscription Statuses names only the latest), up to `renewals`
/// times; at the end every period the stand-in sold must be in the ledger exactly once, the first paying its checkout
/// and each later one its own order `renewal:<transaction_id>`, for the subscription's player.
struct ChaosSubscriptions {
    /// How many subscriptions are sold, how long their periods last, and how often each renews.
    static let count = 8
    static let periodSeconds = 2.0
    static let renewals = 2
    /// Their product: its own, so that the other orders' product keeps its kind.
    static let product = "com.example.vip_chaos"

    private let standIn: AppStoreStandIn
    /// The subscriptions' original transaction ids, and their players.
    private let originals: [(original: String, user: String)]
    /// Renewals made per subscription.
    private var renewed: [String: Int] = [:]

    /// Sells the subscriptions at the stand-in and enqueues each first period for its checkout order.
    static func start(standIn: AppStoreStandIn, on connection: PostgresConnection) async throws -> ChaosSubscriptions {
        var originals: [(String, String)] = []
        for index in 0..<count {
            let original = String(7_100_000_000 + index)
            let user = "chaos-vip-\(index)"
            let first = standIn.subscribe(
                SubscriptionPurchase(transactionID: original, productID: product, periodSeconds: periodSeconds)
            )
            try await connection.execute(
                "SELECT iap.create_order($1, $2, $3), iap.enqueue_transaction($1, $2, $3, $4)",
                ["chaos-vip-\(original)", user, product, standIn.testChain.signedTransaction(first)]
            )
            originals.append((original, user))
        }
        return ChaosSubscriptions(standIn: standIn, originals: originals)
    }

    private init(standIn: AppStoreStandIn, originals: [(original: String, user: String)]) {
        self.standIn = standIn
        self.originals = originals
    }

    /// Renews each subscription whose latest period the ledger holds and whose period ends within 1.5 s.
    mutating func step(on connection: PostgresConnection) async throws {
        let delivered = try await deliveredIDs(on: connection)
        let now = SignedTransactionPayload.nowMilliseconds()
        for (original, _) in originals where renewed[original, default: 0] < Self.renewals {
            guard let latest = standIn.subscriptionTransactions(original).last,
                delivered.contains(latest.transactionId),
                (latest.expiresDate ?? 0) - now < 1_500
            else { continue }
            try await standIn.changeSubscription(.renew, original)
            renewed[original, default: 0] += 1
        }
    }

    /// Whether every subscription renewed as often as it will and the ledger holds every period.
    func isOver(on connection: PostgresConnection) async throws -> Bool {
        guard originals.allSatisfy({ renewed[$0.original, default: 0] == Self.renewals }) else { return false }
        let delivered = try await deliveredIDs(on: connection)
        return originals.allSatisfy { subscription in
            standIn.subscriptionTransactions(subscription.original).allSatisfy { delivered.contains($0.transactionId) }
        }
    }

    /// Every broken rule: a period lost, delivered to another order or player, or an order delivered more than once.
    func check(on connection: PostgresConnection) async throws -> (periods: Int, violations: [String]) {
        var violations: [String] = []
        let rows = try await connection.execute(
            """
            SELECT transaction_id, order_id, user_id, subscription_id FROM iap.deliveries WHERE product_id = $1
            """,
            [Self.product]
        ).namedRows
        var byTransaction: [String: QueryResult.Row] = [:]
        for row in rows { byTransaction[try row.string("transaction_id")] = row }
        var periods = 0
        for (original, user) in originals {
            for (index, period) in standIn.subscriptionTransactions(original).enumerated() {
                periods += 1
                guard let row = byTransaction[period.transactionId] else {
                    violations.append("subscription \(original): period \(period.transactionId) lost")
                    continue
                }
                let order = index == 0 ? "chaos-vip-\(original)" : "renewal:\(period.transactionId)"
                if row["order_id"] != order || row["user_id"] != user || row["subscription_id"] != "apple:" + original {
                    violations.append(
                        "subscription \(original): period \(period.transactionId) delivered to \(row["order_id"] ?? "-") "
                            + "of \(row["user_id"] ?? "-"), not \(order) of \(user)"
                    )
                }
            }
        }
        if rows.count != periods {
            violations.append("\(rows.count) subscription periods in the ledger, \(periods) sold")
        }
        let repeated = try await connection.execute(
            """
            SELECT order_id FROM iap.deliveries WHERE product_id = $1 GROUP BY order_id HAVING count(*) > 1
            """,
            [Self.product]
        ).rows.compactMap { $0[0] }
        if !repeated.isEmpty { violations.append("subscription orders paid more than once: \(repeated)") }
        return (periods, violations)
    }

    private func deliveredIDs(on connection: PostgresConnection) async throws -> Set<String> {
        Set(
            try await connection.execute(
                "SELECT transaction_id FROM iap.deliveries WHERE product_id = $1",
                [Self.product]
            ).rows.compactMap { $0[0] }
        )
    }
}
