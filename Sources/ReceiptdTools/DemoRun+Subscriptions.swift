import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The VIP pass: its checkout order, player, product and first transaction (the subscription's original id).
    static let vipOrder = "demo-vip"
    static let vipUser = "olga"
    static let vipProduct = "com.example.vip_monthly"
    static let vipOriginal = "3000000001"

    /// A VIP pass (an auto-renewable with four-second periods at the stand-in) bought at checkout and settled from
    /// the client's signed transaction; then, each through Apple's signed notification at `intakeURL`: renewed (its
    /// own order), a renewal failing into the grace period, recovered (another order), renewal turned off, expired.
    /// The game grants each period once and checks the entitlement.
    func sellVIPPass(on connection: PostgresConnection, standIn: AppStoreStandIn, intakeURL: String) async throws {
        try await connection.execute(
            "SELECT iap.define_product('apple', $1, 'auto_renewable')",
            [Self.vipProduct]
        )
        try await connection.execute(
            "SELECT iap.create_order($1, $2, $3)",
            [Self.vipOrder, Self.vipUser, Self.vipProduct]
        )
        let first = standIn.subscribe(
            SubscriptionPurchase(transactionID: Self.vipOriginal, productID: Self.vipProduct, periodSeconds: 4)
        )
        try await connection.execute(
            "SELECT iap.enqueue_transaction($1, $2, $3, $4)",
            [Self.vipOrder, Self.vipUser, Self.vipProduct, standIn.testChain.signedTransaction(first)]
        )
        say("VIP pass bought by \(Self.vipUser): \(try await subscriptionLine(on: connection, periods: 1))")

        try await standIn.changeSubscription(.renew, Self.vipOriginal, notify: intakeURL)
        say("Apple renews it (DID_RENEW): \(try await subscriptionLine(on: connection, periods: 2))")

        try await standIn.changeSubscription(.failRenewal(graceSeconds: 30), Self.vipOriginal, notify: intakeURL)
        say(
            "The next renewal fails (DID_FAIL_TO_RENEW, GRACE_PERIOD): "
                + (try await subscriptionLine(on: connection, periods: 2, state: .gracePeriod))
        )

        try await standIn.changeSubscription(.renew, Self.vipOriginal, notify: intakeURL)
        say(
            "Apple recovers the payment (DID_RENEW, BILLING_RECOVERY): "
                + (try await subscriptionLine(on: connection, periods: 3))
        )

        try await standIn.changeSubscription(.setAutoRenew(false), Self.vipOriginal, notify: intakeURL)
        try await standIn.changeSubscription(.expire, Self.vipOriginal, notify: intakeURL)
        say(
            "The player turns renewal off, and the pass expires (EXPIRED, VOLUNTARY): "
                + (try await subscriptionLine(on: connection, periods: 3, state: .expired))
        )

        let periods = try await connection.execute(
            "SELECT order_id FROM iap.owed_deliveries($1) WHERE subscription_id IS NOT NULL ORDER BY period_start",
            [Self.vipUser]
        ).rows.compactMap { $0[0] }
        for order in periods { try await connection.execute("SELECT iap.mark_granted($1)", [order]) }
        let entitled =
            try await connection.execute("SELECT count(*) AS n FROM iap.entitlements($1)", [Self.vipUser]).first?.int(
                "n"
            ) ?? 0
        say(
            "The game granted each period once (\(periods.joined(separator: ", "))); "
                + "iap.entitlements('\(Self.vipUser)') now lists \(entitled) subscription(s)"
        )
    }

    /// Waits until the VIP pass (`subscriptionID`, the App Store's by default) has `periods` periods in the ledger,
    /// each settled, and is in `state` with renewal `autoRenew` (either, when nil); one line on it.
    func subscriptionLine(
        _ subscriptionID: String = "apple:" + vipOriginal,
        on connection: PostgresConnection,
        periods: Int,
        state: SubscriptionState = .active,
        autoRenew: Bool? = nil
    ) async throws -> String {
        try await poll("\(subscriptionID) with \(periods) period(s), \(state.rawValue)", on: connection) {
            try await $0.execute(
                """
                SELECT s.subscription_id || ' ' || s.state || coalesce(', entitled until '
                       || to_char(s.entitled_until AT TIME ZONE 'UTC', 'HH24:MI:SS'), '')
                       || ', auto-renew ' || CASE WHEN s.auto_renew THEN 'on' ELSE 'off' END
                       || '; periods: ' || (SELECT string_agg(d.order_id, ', ' ORDER BY d.period_start)
                                            FROM iap.deliveries d WHERE d.subscription_id = s.subscription_id) AS line
                FROM iap.subscriptions s
                WHERE s.subscription_id = $1 AND s.state = $2 AND s.auto_renew = coalesce($4, s.auto_renew)
                  AND (SELECT count(*) FROM iap.deliveries d WHERE d.subscription_id = s.subscription_id) = $3
                  AND NOT EXISTS (SELECT 1 FROM iap.jobs j JOIN iap.orders o USING (order_id)
                                  WHERE o.user_id = s.user_id AND j.state IN ('pending', 'running'))
                """,
                [subscriptionID, state.rawValue, periods, autoRenew]
            ).first?["line"]
        }
    }
}
