import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The Google Play VIP pass: its checkout order, player, account id, product and first order (`GPA.…`).
    static let googleVIPOrder = "demo-gvip"
    static let googleVIPUser = "gwen"
    static let googleVIPAccount = "acct-gwen"
    static let googleVIPProduct = "com.example.vip_monthly"
    static let googleVIPOrderID = "GPA.3500-0000-0000-00001"

    /// The same VIP pass bought on Google Play (minute-long periods at the stand-in) and settled from the client's
    /// token, acknowledged once; then, each through Google's real-time notification at `intakeURL` and a read of
    /// subscriptionsv2: renewed (its own order), a renewal failing into the grace period and on to account hold,
    /// recovered (another order), cancelled (the service lasting the period), expired. The game grants each period
    /// once; `iap.entitlements` answers for both stores alike.
    func sellGoogleVIPPass(
        on connection: PostgresConnection,
        googlePlay: GooglePlayStandIn,
        intakeURL: String
    ) async throws {
        try await connection.execute(
            "SELECT iap.define_product('google', $1, 'auto_renewable')",
            [Self.googleVIPProduct]
        )
        try await connection.execute(
            "SELECT iap.create_order($1, $2, $3, 1, NULL, $4)",
            [Self.googleVIPOrder, Self.googleVIPUser, Self.googleVIPProduct, Self.googleVIPAccount]
        )
        let token = googlePlay.subscribe(
            GoogleSubscriptionSale(
                productID: Self.googleVIPProduct,
                periodSeconds: 60,
                accountID: Self.googleVIPAccount,
                orderID: Self.googleVIPOrderID
            )
        )
        try await connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, 1, $5)",
            [Self.googleVIPOrder, Self.googleVIPUser, Self.googleVIPProduct, token, Self.googleVIPAccount]
        )
        let id = "google:" + Self.googleVIPOrderID
        say(
            "Google Play VIP pass bought by \(Self.googleVIPUser): \(try await subscriptionLine(id, on: connection, periods: 1))"
        )
        _ = try await poll("the Google VIP pass's acknowledgement", on: connection) { _ in
            googlePlay.subscriptionAcknowledged(token) ? "acknowledged" : nil
        }

        func change(_ change: GoogleSubscriptionChange) async throws {
            try await googlePlay.changeSubscription(change, token, notify: intakeURL, audience: Self.googlePushAudience)
        }
        try await change(.renew)
        say("Google renews it (SUBSCRIPTION_RENEWED): \(try await subscriptionLine(id, on: connection, periods: 2))")
        try await change(.failRenewal(graceSeconds: 30))
        say(
            "The next renewal fails (SUBSCRIPTION_IN_GRACE_PERIOD): "
                + (try await subscriptionLine(id, on: connection, periods: 2, state: .gracePeriod))
        )
        try await change(.endGracePeriod)
        say(
            "The grace period ends unpaid (SUBSCRIPTION_ON_HOLD): "
                + (try await subscriptionLine(id, on: connection, periods: 2, state: .onHold))
        )
        try await change(.recover)
        say(
            "Google recovers the payment (SUBSCRIPTION_RECOVERED): "
                + (try await subscriptionLine(id, on: connection, periods: 3))
        )
        try await change(.cancel)
        say(
            "The player cancels (SUBSCRIPTION_CANCELED): "
                + (try await subscriptionLine(id, on: connection, periods: 3, autoRenew: false))
        )
        try await change(.expire)
        say(
            "It expires (SUBSCRIPTION_EXPIRED): "
                + (try await subscriptionLine(id, on: connection, periods: 3, state: .expired))
        )

        let periods = try await connection.execute(
            "SELECT order_id FROM iap.owed_deliveries($1) WHERE subscription_id IS NOT NULL ORDER BY period_start",
            [Self.googleVIPUser]
        ).rows.compactMap { $0[0] }
        for order in periods { try await connection.execute("SELECT iap.mark_granted($1)", [order]) }
        say("The game granted each Google period once (\(periods.joined(separator: ", ")))")
    }
}
