import FakeAppStore
import Foundation
import ReceiptdCore
import Synchronization

/// Subscriptions in both stores renewed through a chaos run's kills, restarts and outages, without a single
/// notification: each renewal is found by the daemons' re-read when the period before ends. The stand-ins renew each
/// subscription shortly before its period ends, as the stores do, up to `renewals` times, on a task of their own that
/// neither the database's restarts nor the run's loop hold up (a renewal made after the period ended would be a
/// resubscription the stores announce, and the run sends no notification); the ledger may lag behind, and a re-read
/// that finds two periods missing delivers both. At the end every period a stand-in sold must be in the ledger
/// exactly once, the first paying its checkout and each later one its own order `renewal:<transaction_id>`, for the
/// subscription's player, and each Google subscription acknowledged exactly once.
final class ChaosSubscriptions: Sendable {
    /// How many subscriptions are sold in each store, how long their periods last, and how often each renews.
    static let count = 8
    static let googleCount = 4
    static let periodSeconds = 2.0
    static let renewals = 2
    /// Their product: its own, so that the other orders' product keeps its kind.
    static let product = "com.example.vip_chaos"

    /// One subscription sold: its id in the ledger's terms, its player, and the stand-in's name for it (the
    /// original transaction id at the App Store, the purchase token at Google Play).
    private struct Sold: Sendable {
        var store: Store
        var key: String
        var subscriptionID: String
        var checkout: String
        var user: String
    }

    private let standIn: AppStoreStandIn
    private let google: GooglePlayStandIn
    private let sold: [Sold]
    /// Renewals made per subscription, by its stand-in key.
    private let renewed = Mutex<[String: Int]>([:])

    /// Sells the subscriptions at both stand-ins and enqueues each first period for its checkout order.
    static func start(
        standIn: AppStoreStandIn,
        google: GooglePlayStandIn,
        on connection: PostgresConnection
    ) async throws -> ChaosSubscriptions {
        var sold: [Sold] = []
        for index in 0..<count {
            let original = String(7_100_000_000 + index)
            let user = "chaos-vip-\(index)"
            let first = standIn.subscribe(
                SubscriptionPurchase(transactionID: original, productID: product, periodSeconds: periodSeconds)
            )
            let checkout = "chaos-vip-\(original)"
            try await connection.execute(
                "SELECT iap.create_order($1, $2, $3), iap.enqueue_transaction($1, $2, $3, $4)",
                [checkout, user, product, standIn.testChain.signedTransaction(first)]
            )
            sold.append(
                Sold(store: .apple, key: original, subscriptionID: "apple:" + original, checkout: checkout, user: user)
            )
        }
        try await connection.execute("SELECT iap.define_product('google', $1, 'auto_renewable')", [product])
        for index in 0..<googleCount {
            let orderID = "GPA.7200-0000-0000-\(String(10_000 + index))"
            let user = "chaos-gvip-\(index)"
            let account = "acct-" + user
            let token = google.subscribe(
                GoogleSubscriptionSale(
                    productID: product,
                    periodSeconds: periodSeconds,
                    accountID: account,
                    orderID: orderID
                )
            )
            let checkout = "chaos-gvip-\(orderID)"
            try await connection.execute(
                """
                SELECT iap.create_order($1, $2, $3, 1, NULL, $5), iap.enqueue_google_purchase($1, $2, $3, $4, 1, $5)
                """,
                [checkout, user, product, token, account]
            )
            sold.append(
                Sold(store: .google, key: token, subscriptionID: "google:" + orderID, checkout: checkout, user: user)
            )
        }
        return ChaosSubscriptions(standIn: standIn, google: google, sold: sold)
    }

    private init(standIn: AppStoreStandIn, google: GooglePlayStandIn, sold: [Sold]) {
        self.standIn = standIn
        self.google = google
        self.sold = sold
    }

    /// The ledger ids of every period the stand-in sold of `subscription`, oldest first, and when the latest ends.
    private func periods(of subscription: Sold) -> (ids: [String], expiry: Date?) {
        switch subscription.store {
        case .apple:
            let transactions = standIn.subscriptionTransactions(subscription.key)
            return (
                transactions.map(\.transactionId),
                transactions.last?.expiresDate.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            )
        case .google:
            let periods = google.subscriptionPeriods(subscription.key)
            return (periods?.orders ?? [], periods?.expiry)
        }
    }

    /// Renews, every 100 ms until each subscription renewed `renewals` times (or the task is cancelled), each one
    /// whose period ends within 1.5 s.
    func renewAsTheStoresDo() async {
        while !Task.isCancelled, renewed.withLock({ $0.values.reduce(0, +) }) < sold.count * Self.renewals {
            for subscription in sold where renewed.withLock({ $0[subscription.key, default: 0] }) < Self.renewals {
                guard let expiry = periods(of: subscription).expiry, expiry.timeIntervalSinceNow < 1.5 else { continue }
                switch subscription.store {
                case .apple: _ = try? await standIn.changeSubscription(.renew, subscription.key)
                case .google: _ = try? await google.changeSubscription(.renew, subscription.key)
                }
                renewed.withLock { $0[subscription.key, default: 0] += 1 }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether every subscription renewed as often as it will and the ledger holds every period.
    func isOver(on connection: PostgresConnection) async throws -> Bool {
        let renewed = self.renewed.withLock { $0 }
        guard sold.allSatisfy({ renewed[$0.key, default: 0] == Self.renewals }) else { return false }
        let delivered = try await deliveredIDs(on: connection)
        return sold.allSatisfy { periods(of: $0).ids.allSatisfy { delivered.contains($0) } }
    }

    /// Every broken rule: a period lost, delivered to another order or player, an order delivered more than once,
    /// or a Google subscription not acknowledged exactly once.
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
        for subscription in sold {
            for (index, period) in self.periods(of: subscription).ids.enumerated() {
                periods += 1
                guard let row = byTransaction[period] else {
                    violations.append("subscription \(subscription.subscriptionID): period \(period) lost")
                    continue
                }
                let order = index == 0 ? subscription.checkout : "renewal:\(period)"
                if row["order_id"] != order || row["user_id"] != subscription.user
                    || row["subscription_id"] != subscription.subscriptionID
                {
                    violations.append(
                        "subscription \(subscription.subscriptionID): period \(period) delivered to "
                            + "\(row["order_id"] ?? "-") of \(row["user_id"] ?? "-"), not \(order) of \(subscription.user)"
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
        let acknowledgements = google.recordedFinalizations().filter {
            $0.action == .acknowledgeSubscription && $0.httpStatus == 200
        }
        for subscription in sold where subscription.store == .google {
            let count = acknowledgements.filter { $0.token == subscription.key }.count
            if count != 1 {
                violations.append("subscription \(subscription.subscriptionID) acknowledged \(count) times")
            }
        }
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
