import FakeAppStore
import Foundation
import ReceiptdCore

/// What a chaos run found: counts for the summary and every violated invariant.
package struct ChaosReport: Sendable {
    /// Orders created.
    package var orders: Int
    /// Time from the daemons' start to the end of the run.
    package var elapsed: Duration
    /// SIGKILLs sent to daemons.
    package var kills: Int
    /// Daemons that died without being killed.
    package var crashes: Int
    /// Cancel notifications sent for running jobs that nobody replaced.
    package var forgedCancels: Int
    /// verifyReceipt calls the stand-in App Store answered (or dropped).
    package var appleCalls: Int
    /// App Store Server API calls the stand-in answered.
    package var serverAPIRequests: Int
    /// Orders paid by a StoreKit 2 transaction (signed or looked up).
    package var transactionOrders: Int
    /// Google Play purchases delivered, each of which Google must have acknowledged exactly once.
    package var googleDeliveries: Int
    /// Ledger rows.
    package var deliveries: Int
    /// Orders per outcome.
    package var outcomes: [String: Int]
    /// How long a game transaction held an order's rows locked while the run went on (0: it could not).
    package var gameTransactionSeconds: Double = 0
    /// App Store orders enqueued while Google Play was out that settled before it came back.
    package var settledDuringStoreOutage = 0
    /// Orders of trusted players granted provisionally while their store failed (`iap.provisional_grants`).
    package var provisionalGranted = 0
    /// Provisional grants a paying transaction confirmed.
    package var provisionalConfirmed = 0
    /// Provisional grants verification refuted (handed back through `iap.owed_revocations`).
    package var provisionalRefuted = 0
    /// Provisional grants handed back because an operator cancelled their order's job or the game closed the order.
    package var provisionalCancelled = 0
    /// Subscription periods the stand-in sold, each of which must be in the ledger once (`ChaosSubscriptions`).
    package var subscriptionPeriods = 0
    /// Webhook events written (`iap.webhook_events`), each of which must have been delivered.
    package var webhookEvents = 0
    /// Webhook requests the receiver took again after taking their id once (a daemon killed before recording).
    package var webhookRedeliveries = 0
    /// Every broken rule, one line each; empty when the run passed.
    package var violations: [String]

    static func check(
        orders plan: ChaosOrders,
        connection: PostgresConnection,
        elapsed: Duration,
        kills: Int,
        crashes: Int,
        gracefulExitCodes: [Int32?],
        apple: Int,
        serverAPI: Int,
        googleFinalizations: [RecordedGoogleFinalization],
        forgedCancels: Int
    ) async throws -> ChaosReport {
        var violations: [String] = []
        let rows = try await connection.execute(
            """
            SELECT o.order_id, o.outcome::text AS outcome, o.quantity, o.delivered_quantity,
                   coalesce(sum(d.quantity), 0) AS ledger_quantity, coalesce(string_agg(d.transaction_id, ','), '') AS transactions
            FROM iap.orders o LEFT JOIN iap.deliveries d USING (order_id)
            GROUP BY o.order_id
            """
        ).namedRows
        var byOrder: [String: QueryResult.Row] = [:]
        for row in rows { byOrder[try row.string("order_id")] = row }

        let missing = plan.allOrderIDs.subtracting(byOrder.keys)
        if !missing.isEmpty { violations.append("\(missing.count) orders missing, e.g. \(missing.sorted().prefix(3))") }
        for (id, row) in byOrder.sorted(by: { $0.key < $1.key }) {
            if row["outcome"] == nil { violations.append("\(id): no outcome") }
            let ledger = try row.int("ledger_quantity")
            let delivered = try row.int("delivered_quantity")
            if ledger != delivered { violations.append("\(id): ledger has \(ledger) units, order says \(delivered)") }
            if delivered > (try row.int("quantity")) { violations.append("\(id): delivered \(delivered) > quantity") }
        }
        for (id, expectation) in plan.expectations {
            violations += ChaosExpectationCheck.violations(of: expectation, order: id, rows: byOrder)
        }
        let running =
            try await connection.execute("SELECT count(*) AS n FROM iap.jobs WHERE state IN ('running', 'pending')")
            .first?.int("n") ?? -1
        if running != 0 { violations.append("\(running) jobs still pending or running") }
        if crashes > 0 { violations.append("\(crashes) daemon crashes that the run did not cause") }
        let unclean = gracefulExitCodes.filter { $0 != 0 }
        if !unclean.isEmpty {
            violations.append("daemons did not exit 0 on SIGTERM: \(unclean.map { $0.map(String.init) ?? "killed" })")
        }

        // Every delivered Google one-time purchase acknowledged exactly once (successful calls), and no other
        // purchase at all (subscriptions are `ChaosSubscriptions`' to check).
        let googleDelivered = try await connection.execute(
            "SELECT transaction_id FROM iap.deliveries WHERE store = 'google' AND subscription_id IS NULL"
        ).rows.compactMap { $0[0] }
        var acknowledged: [String: Int] = [:]
        for call in googleFinalizations where call.httpStatus == 200 && call.action != .acknowledgeSubscription {
            acknowledged[SyntheticPurchaseToken(token: call.token)?.orderID ?? call.token, default: 0] += 1
        }
        for transaction in googleDelivered where acknowledged[transaction] != 1 {
            violations.append("Google purchase \(transaction) acknowledged \(acknowledged[transaction] ?? 0) times")
        }
        for (transaction, _) in acknowledged where !googleDelivered.contains(transaction) {
            violations.append("Google purchase \(transaction) acknowledged but not delivered")
        }

        var outcomes: [String: Int] = [:]
        for row in rows { outcomes[row["outcome"] ?? "none", default: 0] += 1 }
        let deliveries = try await connection.execute("SELECT count(*) AS n FROM iap.deliveries").first?.int("n") ?? 0
        let transactionOrders =
            try await connection.execute(
                """
                SELECT count(DISTINCT d.order_id) AS n FROM iap.deliveries d JOIN iap.jobs j ON j.id = d.job_id WHERE j.kind = 'transaction'
                """
            ).first?.int("n") ?? 0
        return ChaosReport(
            orders: rows.count,
            elapsed: elapsed,
            kills: kills,
            crashes: crashes,
            forgedCancels: forgedCancels,
            appleCalls: apple,
            serverAPIRequests: serverAPI,
            transactionOrders: transactionOrders,
            googleDeliveries: googleDelivered.count,
            deliveries: deliveries,
            outcomes: outcomes,
            violations: violations
        )
    }

    /// A few lines for a terminal.
    package var summary: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let counts = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return """
            orders: \(orders) in \(String(format: "%.1f", seconds)) s; outcomes: \(counts)
            deliveries: \(deliveries) (\(transactionOrders) orders by StoreKit 2 transaction); verifyReceipt calls: \(appleCalls); \
            Server API calls: \(serverAPIRequests); Google purchases delivered and acknowledged once: \(googleDeliveries); App Store orders settled while Google was out: \(settledDuringStoreOutage); daemons killed: \(kills); crashes: \(crashes); forged cancels: \(forgedCancels)
            provisional grants: \(provisionalGranted) (confirmed \(provisionalConfirmed), refuted \(provisionalRefuted), \
            cancelled \(provisionalCancelled))
            subscription periods sold, each delivered once: \(subscriptionPeriods)
            webhook events delivered: \(webhookEvents) (\(webhookRedeliveries) sent again after a kill or a restart)
            violations: \(violations.isEmpty ? "none" : "\n  " + violations.prefix(20).joined(separator: "\n  "))
            """
    }
}
