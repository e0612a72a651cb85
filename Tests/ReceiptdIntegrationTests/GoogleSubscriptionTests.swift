import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 37: Google Play subscriptions on the model of the App Store's, through the stand-in's subscriptionsv2 and
/// its subscription acknowledgement: the first period pays its checkout and is acknowledged once, every later period
/// is its own renewal order, and the re-read finds renewals without a notification.
@Suite struct GoogleSubscriptionTests {
    /// Creates checkout `order` for `user` (with Google account id `account`), sells the subscription and enqueues
    /// its token as the game would; returns the token.
    func subscribe(
        _ f: Fixture,
        _ google: GooglePlayStandIn,
        order: String,
        user: String = "gina",
        product: String = "vip_pass",
        periodSeconds: Double = 3600,
        orderID: String
    ) async throws -> String {
        try await f.connection.execute(
            "SELECT iap.create_order($1, $2, $3, 1, NULL, $4)",
            [order, user, product, "acct-" + user]
        )
        let token = google.subscribe(
            GoogleSubscriptionSale(
                productID: product,
                periodSeconds: periodSeconds,
                accountID: "acct-" + user,
                orderID: orderID
            )
        )
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, 1, $5)",
            [order, user, product, token, "acct-" + user]
        )
        return token
    }

    /// The subscription's periods in the ledger, oldest first: (order, transaction).
    func periods(_ f: Fixture, _ subscription: String) async throws -> [[String?]] {
        try await f.connection.execute(
            "SELECT order_id, transaction_id FROM iap.deliveries WHERE subscription_id = $1 ORDER BY period_start",
            [subscription]
        ).namedRows.map { [$0["order_id"], $0["transaction_id"]] }
    }

    @Test func aSubscriptionPaysItsCheckoutAndIsAcknowledgedOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let token = try await subscribe(f, google, order: "g-9100", orderID: "GPA.9100-0000-0000-00001")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL") == "1"
                }
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9100'") == "full")
            #expect(
                try await periods(f, "google:GPA.9100-0000-0000-00001") == [["g-9100", "GPA.9100-0000-0000-00001"]]
            )
            let row = try await f.row(
                """
                SELECT store, user_id, order_id, product_id, state, auto_renew::text, purchase_token, environment,
                       latest_transaction_id, (now() < entitled_until)::text AS entitled
                FROM iap.subscriptions
                """
            )
            #expect(row["store"] == "google" && row["user_id"] == "gina" && row["order_id"] == "g-9100", "\(row)")
            #expect(row["state"] == "active" && row["auto_renew"] == "true" && row["entitled"] == "true", "\(row)")
            #expect(row["purchase_token"] == token && row["environment"] == "Production", "\(row)")
            // One acknowledgement, the subscription's, and never a one-time product's lookup.
            let calls = google.recordedFinalizations()
            #expect(calls.map(\.action) == [.acknowledgeSubscription] && calls.first?.httpStatus == 200)
            #expect(google.subscriptionAcknowledged(token))
            #expect(!google.recordedPurchaseQueries().contains { $0.productID != "subscriptionsv2" })
            let entitlement = try await f.row("SELECT store, product_id, kind, state FROM iap.entitlements('gina')")
            #expect(entitlement["store"] == "google" && entitlement["kind"] == "auto_renewable", "\(entitlement)")
        }
    }

    @Test func anUndeclaredSubscriptionProductIsAskedAsOneAndCostsNoTrust() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            _ = try await subscribe(f, google, order: "g-9200", orderID: "GPA.9200-0000-0000-00001")
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9200'") == "full")
            // productsv2 refused the token; subscriptionsv2 knew it, and the catalogue learned the product's kind.
            #expect(google.recordedPurchaseQueries().map(\.httpStatus) == [404, 200])
            #expect(
                try await f.value("SELECT kind FROM iap.products WHERE store = 'google' AND product_id = 'vip_pass'")
                    == "auto_renewable"
            )
            // An honest subscriber: nothing says otherwise of their trust.
            #expect(
                try await f.value("SELECT count(*) FROM iap.user_trust WHERE user_id = 'gina' AND NOT trusted") == "0"
            )
        }
    }

    @Test func renewalsFoundByTheReReadAreEachTheirOwnOrderAndNeverAcknowledged() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let base = "GPA.9300-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9300", periodSeconds: 3, orderID: base)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await periods(f, "google:" + base).count == 1 }
                // Two renewals, no notification: the re-read at the entitlement's end finds the latest, and its
                // lookup names the one between.
                try await google.changeSubscription(.renew, token)
                try await google.changeSubscription(.renew, token)
                try await f.waitUntil(timeout: .seconds(30)) { try await periods(f, "google:" + base).count == 3 }
                try await f.waitUntilSettled()
            }
            #expect(
                try await periods(f, "google:" + base) == [
                    ["g-9300", base], ["renewal:\(base)..0", "\(base)..0"], ["renewal:\(base)..1", "\(base)..1"],
                ]
            )
            #expect(
                try await f.value("SELECT count(*) FROM iap.owed_deliveries('gina') WHERE order_id LIKE 'renewal:%'")
                    == "2"
            )
            #expect(google.recordedFinalizations().filter { $0.httpStatus == 200 }.count == 1)
            #expect(try await f.value("SELECT latest_transaction_id FROM iap.subscriptions") == "\(base)..1")
        }
    }
}
