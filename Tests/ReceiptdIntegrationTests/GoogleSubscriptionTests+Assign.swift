import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 47: a Google subscription an operator assigns is the player's subscription (its row, history and
/// `subscription.started`), and a `SUBSCRIPTION_RENEWED` of a token no row has waits for its subscription, as Apple's
/// renewal of an unknown subscription does, then becomes an unclaimed payment.
extension GoogleSubscriptionTests {
    /// The result and error of the `SUBSCRIPTION_RENEWED` notification.
    func renewedNotification(_ f: Fixture) async throws -> QueryResult.Row {
        try await f.row(
            "SELECT result, error FROM iap.store_notifications WHERE notification_type = 'SUBSCRIPTION_RENEWED'"
        )
    }

    @Test func anAssignedSubscriptionIsThePlayersAndTheRenewalWaitingForItIsDelivered() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9790-0000-0000-00001"
            let token = google.subscribe(
                GoogleSubscriptionSale(
                    productID: "vip_pass",
                    periodSeconds: 3600,
                    accountID: "acct-nobody",
                    orderID: first
                )
            )
            let receiver = try await Fixture.webhookReceiver()
            var settings = intakeSettings(base, google)
            settings.webhooks = try f.webhookSettings(receiver).webhooks
            try await f.withDaemonsAndGoogleIntake(settings: settings) { url in
                _ = try await google.pushSubscriptionPurchased(token, to: url, audience: "receiptd-subscriptions")
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.unclaimed_payments WHERE transaction_id = $1", [first])
                        == "1"
                }
                // Google renews while nobody has the subscription: its SUBSCRIPTION_RENEWED waits.
                try await google.changeSubscription(.renew, token, notify: url, audience: "receiptd-subscriptions")
                try await f.waitUntil {
                    try await renewedNotification(f)["error"]?.contains("waiting for it") == true
                }
                #expect(try await renewedNotification(f)["result"] == nil)
                #expect(try await f.value("SELECT count(*) FROM iap.subscriptions") == "0")

                try await f.connection.execute("SELECT iap.create_order('g-9790', 'gina', 'vip_pass')")
                try await f.connection.execute("SELECT iap.assign_payment($1, 'g-9790')", [first])
                // Assigning made the subscription, its history and its subscription.started.
                let row = try await f.row(
                    "SELECT subscription_id, user_id, order_id, purchase_token FROM iap.subscriptions"
                )
                #expect(row["subscription_id"] == "google:" + first && row["user_id"] == "gina", "\(row)")
                #expect(row["order_id"] == "g-9790" && row["purchase_token"] == token, "\(row)")
                // (Its first read may have added to its history already.)
                #expect(try await f.value("SELECT count(*) > 0 FROM iap.subscription_history") == "t")
                #expect(
                    try await f.value(
                        "SELECT order_id FROM iap.webhook_events WHERE type = 'subscription.started'"
                    ) == "g-9790"
                )
                // Read from Google at once: the player is entitled, and the renewal's wait resolves.
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.entitlements('gina') WHERE kind = 'auto_renewable'")
                        == "1"
                }
                try await f.waitUntil(timeout: .seconds(20)) {
                    try await periods(f, "google:" + first).count == 2
                }
                // The waiting notification's next try finds the subscription.
                try await f.waitUntil(timeout: .seconds(20)) {
                    try await renewedNotification(f)["result"] == "subscription_updated"
                }
                try await f.waitUntilSettled()
            }
            try await receiver.shutdown()
            #expect(
                try await periods(f, "google:" + first) == [
                    ["g-9790", first], ["renewal:\(first)..0", "\(first)..0"],
                ]
            )
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments WHERE assigned_at IS NULL") == "0")
        }
    }

    @Test func aRenewalNoSubscriptionHasForADayIsUnclaimedAndAssigningItMakesTheSubscription() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9795-0000-0000-00001"
            // Bought before receiptd knew of it: only its renewal's news comes.
            let token = google.subscribe(
                GoogleSubscriptionSale(
                    productID: "vip_pass",
                    periodSeconds: 3600,
                    accountID: "acct-nobody",
                    orderID: first
                )
            )
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await google.changeSubscription(.renew, token, notify: url, audience: "receiptd-subscriptions")
                try await f.waitUntil {
                    try await renewedNotification(f)["error"]?.contains("waiting for it") == true
                }
                // A day passes without the subscription.
                try await f.connection.execute(
                    """
                    UPDATE iap.store_notifications SET signed_at = now() - interval '25 hours', run_at = now()
                    WHERE notification_type = 'SUBSCRIPTION_RENEWED'
                    """
                )
                try await f.waitUntil {
                    try await renewedNotification(f)["result"] == "charge_unclaimed"
                }
                let unclaimed = try await f.row(
                    "SELECT transaction_id, original_transaction_id, purchase_token, product_id FROM iap.unclaimed_payments"
                )
                #expect(unclaimed["transaction_id"] == "\(first)..0" && unclaimed["original_transaction_id"] == first)
                #expect(unclaimed["purchase_token"] == token && unclaimed["product_id"] == "vip_pass", "\(unclaimed)")

                try await f.connection.execute("SELECT iap.create_order('g-9795', 'gina', 'vip_pass')")
                try await f.connection.execute("SELECT iap.assign_payment($1, 'g-9795')", ["\(first)..0"])
                #expect(
                    try await f.value(
                        "SELECT user_id FROM iap.subscriptions WHERE subscription_id = $1",
                        ["google:" + first]
                    )
                        == "gina"
                )
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.entitlements('gina') WHERE kind = 'auto_renewable'")
                        == "1"
                }
            }
            #expect(try await periods(f, "google:" + first) == [["g-9795", "\(first)..0"]])
            // A renewal owes Google no acknowledgement.
            #expect(try await f.value("SELECT count(*) FROM iap.google_finalizations") == "0")
        }
    }
}
