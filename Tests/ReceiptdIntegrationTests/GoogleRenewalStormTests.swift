import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// The Google Play renewal storm's pieces (issue #48, item 4) on a small seeded database: the renewals picked from
/// the seed, the stand-in serving each renewed, the pushes made beforehand, and the completion check, through the
/// daemons' own intake, processing and re-read.
@Suite struct GoogleRenewalStormTests {
    @Test func seededSubscriptionsRenewOnceEachThroughTheirPushes() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            var settings = base
            settings.googlePlay.oidcCertsURL = google.oidcCertsURL
            settings.googlePlay.pubsubAudience = GooglePlayRenewals.audience
            settings.googlePlay.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
            let url = f.database.connectionString
            _ = try await SubscriptionSeed.write(subscriptions: 240, connectionString: url, chunk: 120)
            let count = 12
            let storm = try await GooglePlayRenewals.pick(count: count, connectionString: url)
            #expect(storm.renewals.count == count)
            for renewal in storm.renewals {
                // The next order in the seed's scheme: the ledger's latest period is the one before it.
                let previous =
                    renewal.renewed.periodsBefore == 1
                    ? renewal.renewed.firstOrderID
                    : "\(renewal.renewed.firstOrderID)..\(renewal.renewed.periodsBefore - 2)"
                #expect(
                    try await f.value(
                        "SELECT latest_transaction_id FROM iap.subscriptions WHERE subscription_id = $1",
                        [renewal.subscriptionID]
                    ) == previous
                )
                #expect(renewal.subscriptionID == "google:" + renewal.renewed.firstOrderID)
            }
            let expected = try storm.expected()
            let before = try await storm.completion(on: f.connection, expected: expected)
            #expect(before.delivered == 0 && before.entitlementsMoved == 0 && before.rereadsDue == 0, "\(before)")
            storm.register(on: google)
            let pushes = try storm.pushes(from: google)
            #expect(pushes.count == count)
            try await f.withDaemonsAndGoogleIntake(settings: settings) { intake in
                for push in pushes {
                    let status = try await GooglePlayStandIn.post(
                        push.body,
                        to: intake,
                        authorization: push.authorization
                    )
                    #expect(status == 200)
                }
                try await f.waitUntil(timeout: .seconds(60)) {
                    try await storm.completion(on: f.connection, expected: expected).isComplete(count)
                }
                try await f.waitUntilSettled()
            }
            let after = try await storm.completion(on: f.connection, expected: expected)
            #expect(after.isComplete(count), "\(after)")
            // Each new period is one ledger row, its renewal order's, and its order is paid in full.
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM iap.deliveries d JOIN iap.orders o USING (order_id)
                    JOIN jsonb_to_recordset($1::jsonb) AS r(subscription_id text, transaction_id text)
                      ON d.store = 'google' AND d.transaction_id = r.transaction_id
                         AND d.subscription_id = r.subscription_id
                    WHERE o.outcome = 'full' AND d.order_id = 'renewal:' || r.transaction_id
                    """,
                    [expected]
                ) == "\(count)"
            )
            // Every push cost a subscriptionsv2 read at least; a later storm picks none of these again.
            let calls = GooglePlayRenewals.storeCalls(google)
            #expect(calls.reads >= count, "\(calls)")
            let again = try await GooglePlayRenewals.pick(count: count, connectionString: url)
            #expect(Set(again.renewals.map(\.subscriptionID)).isDisjoint(with: storm.renewals.map(\.subscriptionID)))
        }
    }
}
