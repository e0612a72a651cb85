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
        prepaid: Bool = false,
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
                orderID: orderID,
                prepaid: prepaid
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

    /// Settings whose Google intake accepts the stand-in's pushes.
    func intakeSettings(_ base: ReceiptdSettings, _ google: GooglePlayStandIn) -> ReceiptdSettings {
        var settings = base
        settings.googlePlay.oidcCertsURL = google.oidcCertsURL
        settings.googlePlay.pubsubAudience = "receiptd-subscriptions"
        settings.googlePlay.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
        return settings
    }

    @Test func aSubscriptionNoClientReportedSettlesFromItsPurchasedNotificationAlone() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            try await f.connection.execute(
                "SELECT iap.create_order('g-9400', 'gina', 'vip_pass', 1, NULL, 'acct-gina')"
            )
            let token = google.subscribe(
                GoogleSubscriptionSale(
                    productID: "vip_pass",
                    periodSeconds: 3600,
                    accountID: "acct-gina",
                    orderID: "GPA.9400-0000-0000-00001"
                )
            )
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                let status = try await google.pushSubscriptionPurchased(
                    token,
                    to: url,
                    audience: "receiptd-subscriptions"
                )
                #expect(status == 200)
                try await f.waitUntil {
                    try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9400'") == "full"
                }
                try await f.waitUntil { google.subscriptionAcknowledged(token) }
                // The same news again, and the client's token after it: nothing is delivered twice.
                _ = try await google.pushSubscriptionPurchased(token, to: url, audience: "receiptd-subscriptions")
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase('g-9400', 'gina', 'vip_pass', $1, 1, 'acct-gina')",
                    [token]
                )
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
                }
                try await f.waitUntilSettled()
            }
            #expect(try await periods(f, "google:GPA.9400-0000-0000-00001").count == 1)
            #expect(
                try await f.value("SELECT string_agg(result, ',' ORDER BY id) FROM iap.store_notifications")
                    == "charge_enqueued,subscription_updated"
            )
            #expect(google.recordedFinalizations().filter { $0.httpStatus == 200 }.count == 1)
        }
    }

    @Test func aRenewedNotificationHasTheSubscriptionReadAtOnceAndAVoidedPeriodIsRevoked() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let base9500 = "GPA.9500-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9500", orderID: base9500)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + base9500).count == 1 }
                // An hour-long period renews early: only the notification can have the re-read find it now.
                try await google.changeSubscription(.renew, token, notify: url, audience: "receiptd-subscriptions")
                try await f.waitUntil { try await periods(f, "google:" + base9500).count == 2 }
                try await google.changeSubscription(.cancel, token, notify: url, audience: "receiptd-subscriptions")
                try await f.waitUntil {
                    try await f.value("SELECT auto_renew::text FROM iap.subscriptions") == "false"
                }
                // Google refunds the renewal and says so: its row is revoked and owed back to the game.
                google.void(token: token, orderID: base9500 + "..0")
                let voided = GoogleDeveloperNotification.voided(
                    token: token,
                    orderID: base9500 + "..0",
                    productType: 1,
                    packageName: google.packageName
                )
                #expect(try await google.push(voided, to: url, audience: "receiptd-subscriptions") == 200)
                try await f.waitUntil {
                    try await f.value(
                        "SELECT revoked_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = $1",
                        [base9500 + "..0"]
                    ) == "t"
                }
                try await f.waitUntilSettled()
            }
            #expect(
                try await f.value("SELECT state || ':' || auto_renew FROM iap.subscriptions") == "active:false"
            )
            #expect(
                try await f.value("SELECT count(*) FROM iap.owed_revocations('gina')") == "1"
            )
        }
    }

    @Test func anUpgradeThroughALinkedTokenContinuesTheSubscriptionAndRetiresTheOldToken() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_gold', 'auto_renewable')")
            let first = "GPA.9600-0000-0000-00001"
            let old = try await subscribe(f, google, order: "g-9600", orderID: first)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                // The player upgrades in the app: the game's checkout for the new product, then its token.
                try await f.connection.execute(
                    "SELECT iap.create_order('g-9601', 'gina', 'vip_gold', 1, NULL, 'acct-gina')"
                )
                let new = try #require(try await google.replaceSubscription(old, with: "vip_gold"))
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase('g-9601', 'gina', 'vip_gold', $1, 1, 'acct-gina')",
                    [new]
                )
                try await f.waitUntil {
                    try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9601'") == "full"
                }
                // The old token's news changes nothing; the new token's renewal is the same subscription's.
                try await google.changeSubscription(.expire, old, notify: url, audience: "receiptd-subscriptions")
                try await google.changeSubscription(.renew, new, notify: url, audience: "receiptd-subscriptions")
                do {
                    try await f.waitUntil(timeout: .seconds(15)) { try await periods(f, "google:" + first).count == 3 }
                } catch {
                    let rows = try await f.connection.execute(
                        "SELECT order_id, transaction_id, subscription_id FROM iap.deliveries"
                    ).namedRows.map {
                        "\($0["order_id"] ?? "") \($0["transaction_id"] ?? "") \($0["subscription_id"] ?? "")"
                    }
                    let subs = try await f.connection.execute(
                        "SELECT row_to_json(s)::text AS s FROM iap.subscriptions s"
                    ).namedRows.map { $0["s"] ?? "" }
                    let notes = try await f.connection.execute(
                        "SELECT notification_type, result, error FROM iap.store_notifications"
                    ).namedRows.map { "\($0["notification_type"] ?? "") \($0["result"] ?? "") \($0["error"] ?? "")" }
                    let jobs = try await f.connection.execute("SELECT order_id, state, last_error FROM iap.jobs")
                        .namedRows.map { "\($0["order_id"] ?? "") \($0["state"] ?? "") \($0["last_error"] ?? "")" }
                    Issue.record("\(rows) \(subs) \(notes) \(jobs)")
                    throw error
                }
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
                }
                try await f.waitUntilSettled()
                #expect(
                    try await f.value("SELECT string_agg(result, ',' ORDER BY id) FROM iap.store_notifications")
                        == "recorded,subscription_updated"
                )
                let row = try await f.row(
                    "SELECT subscription_id, product_id, state, purchase_token, order_id FROM iap.subscriptions"
                )
                #expect(row["subscription_id"] == "google:" + first && row["product_id"] == "vip_gold", "\(row)")
                #expect(
                    row["state"] == "active" && row["purchase_token"] == new && row["order_id"] == "g-9600",
                    "\(row)"
                )
            }
            #expect(try await f.value("SELECT count(*) FROM iap.subscriptions") == "1")
            let orders = try await periods(f, "google:" + first).map { $0[0] ?? "" }
            #expect(orders.count == 3 && orders[0] == "g-9600" && orders[1] == "g-9601", "\(orders)")
            #expect(orders[2].hasPrefix("renewal:GPA.") && orders[2].hasSuffix("..0"), "\(orders)")
            // Each token acknowledged once: the first purchase's and the upgrade's.
            let acknowledged = google.recordedFinalizations().filter { $0.httpStatus == 200 }.map(\.token)
            #expect(acknowledged.count == 2 && Set(acknowledged).count == 2 && acknowledged.contains(old))
        }
    }
}
