import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The order a trusted player pays while the App Store is down.
    static let trustedOrder = "demo-trusted"
    /// Its player (App Store players start trusted) and the transaction that pays it.
    static let trustedUser = "olivia"
    static let trustedTransaction = "1000000014"
    /// How long the order waits on a failing store before it is granted provisionally
    /// (`RECEIPTD_PROVISIONAL_AFTER`): long enough that the earlier steps' brief failures, such as
    /// `demo-outage`'s two retried answers, settle before it (they take about a second).
    static let provisionalAfter = Duration.seconds(3)

    /// The demo daemon's trust levels: provisional grants on, after `provisionalAfter`.
    static var trust: TrustConfiguration {
        var trust = TrustConfiguration()
        trust.provisional = .on
        trust.provisionalAfter = provisionalAfter
        return trust
    }

    /// A trusted player served through an outage: the stand-in App Store answers 503 to every call, a new order
    /// of a trusted player waits, and is granted provisionally (`provisional:<order_id>` in
    /// `iap.owed_deliveries`), which the game grants; then the store recovers, the grant is confirmed, and the
    /// real transaction is already granted: nothing is owed twice.
    func serveTrustedThroughOutage(on connection: PostgresConnection, standIn: AppStoreStandIn) async throws {
        let trusted =
            try await connection.execute(
                "SELECT trusted FROM iap.trust_of($1) WHERE store = 'apple'",
                [Self.trustedUser]
            ).first?.bool("trusted") ?? false
        standIn.setOutage(true)
        let gems = "com.example.gems100"
        let receipt = SyntheticReceipt(inApp: [
            SyntheticTransaction(
                transactionID: Self.trustedTransaction,
                productID: gems,
                purchaseDateMilliseconds: String(Int64(Date().timeIntervalSince1970 * 1000))
            )
        ])
        try await connection.execute(
            "SELECT iap.enqueue_receipt($1, $2, $3, $4, 1)",
            [Self.trustedOrder, Self.trustedUser, gems, receipt.encoded()]
        )
        let enqueued = ContinuousClock.now
        say(
            "The App Store goes down (503 to every call); \(Self.trustedUser), \(trusted ? "trusted" : "untrusted") "
                + "on the App Store, pays \(Self.trustedOrder) meanwhile"
        )
        let owed = try await poll("the provisional grant", on: connection) {
            try await $0.execute(
                "SELECT transaction_id FROM iap.owed_deliveries($1) WHERE order_id = $2 AND provisional",
                [Self.trustedUser, Self.trustedOrder]
            ).first?["transaction_id"]
        }
        let failing =
            try await connection.execute(
                "SELECT coalesce(last_error, '-') AS e FROM iap.jobs WHERE order_id = $1 ORDER BY id DESC LIMIT 1",
                [Self.trustedOrder]
            ).first?["e"] ?? "-"
        say(
            "\(milliseconds(since: enqueued)) ms later, the store still failing (\(failing)): "
                + "iap.owed_deliveries('\(Self.trustedUser)'): \(owed), granted provisionally"
        )
        let marked =
            try await connection.execute(
                "SELECT iap.mark_granted($1, ARRAY[$2]) AS n",
                [Self.trustedOrder, owed]
            ).first?.int("n") ?? 0
        say("The game grants it at once: iap.mark_granted marked \(marked) row(s)")

        standIn.setOutage(false)
        let recovered = ContinuousClock.now
        let confirmed = try await poll("the confirmation of the provisional grant", on: connection) {
            try await $0.execute(
                """
                SELECT d.transaction_id || ' delivered, granted: ' || (d.granted_at IS NOT NULL) AS line
                FROM iap.provisional_grants g JOIN iap.deliveries d USING (order_id)
                WHERE g.order_id = $1 AND g.state = 'confirmed'
                """,
                [Self.trustedOrder]
            ).first?["line"]
        }
        let stillOwed =
            try await connection.execute(
                "SELECT count(*) AS n FROM iap.owed_deliveries($1)",
                [Self.trustedUser]
            ).first?.int("n") ?? -1
        say(
            "The App Store is back; \(milliseconds(since: recovered)) ms later the grant is confirmed: "
                + "\(confirmed); iap.owed_deliveries('\(Self.trustedUser)') lists \(stillOwed) row(s)"
        )
        if stillOwed != 0 {
            throw ToolError("demo: \(Self.trustedOrder) is owed again after its provisional grant was confirmed")
        }
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((ContinuousClock.now - start).seconds * 1000)
    }
}
