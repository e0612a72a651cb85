import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Google's notifications from the push to the ledger: the stand-in pushes with its OIDC tokens to the intake a
/// daemon serves, and the daemon's own lookup and processing act on what the intake recorded.
struct GoogleNotificationEndToEndTests {
    @Test func aPushedPurchaseSettlesWithoutTheClientAndAPushedRefundIsOwedToTheGame() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            var settings = base
            settings.googlePlay.oidcCertsURL = google.oidcCertsURL
            settings.googlePlay.pubsubAudience = "receiptd-e2e"
            settings.googlePlay.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
            try await f.connection.execute(
                "SELECT iap.create_order($1, $2, $3, 1, NULL, $4)",
                ["o-e2e", "alice", "gems", "acct-e2e"]
            )
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.900", accountID: "acct-e2e").encoded()
            try await f.withDaemonsAndGoogleIntake(settings: settings) { url in
                try await Self.settleThenRefund(f, google: google, token: token, url: url)
            }
        }
    }

    /// The purchase pushed alone pays the order bound to its account and is acknowledged; the client's token
    /// afterwards delivers nothing twice; the refund pushed after the game granted it is owed back to the game.
    private static func settleThenRefund(
        _ f: Fixture,
        google: GooglePlayStandIn,
        token: String,
        url: String
    ) async throws {
        let purchased = GoogleDeveloperNotification.oneTimeProduct(
            token: token,
            sku: "gems",
            packageName: google.packageName
        )
        #expect(try await google.push(purchased, to: url, audience: "receiptd-e2e") == 200)
        try await f.waitUntil {
            try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'o-e2e'") == "full"
        }
        #expect(
            try await f.value("SELECT submitted_by FROM iap.jobs WHERE order_id = 'o-e2e'") == "google_notification"
        )
        try await f.waitUntil { f.acknowledgements(google, token: token) == 1 }
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, 1, NULL)",
            ["o-e2e", "alice", "gems", token]
        )
        try await f.waitUntilSettled()
        #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
        try await f.connection.execute("SELECT iap.mark_granted('o-e2e', ARRAY['GPA.900'])")

        google.void(token: token, orderID: "GPA.900")
        let voided = GoogleDeveloperNotification.voided(
            token: token,
            orderID: "GPA.900",
            packageName: google.packageName
        )
        #expect(try await google.push(voided, to: url, audience: "receiptd-e2e") == 200)
        try await f.waitUntil(timeout: .seconds(10)) {
            try await f.value("SELECT count(*) FROM iap.owed_revocations('alice') WHERE transaction_id = 'GPA.900'")
                == "1"
        }
        let owed = try await f.row(
            "SELECT revocation_reason, granted::text, revoked_quantity::text FROM iap.owed_revocations('alice')"
        )
        #expect(owed["revocation_reason"] == "voided" && owed["granted"] == "true" && owed["revoked_quantity"] == "1")
        #expect(
            try await f.value("SELECT string_agg(result, ',' ORDER BY id) FROM iap.store_notifications")
                == "charge_enqueued,revoked"
        )
    }
}
