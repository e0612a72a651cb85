import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import NIOCore
import ReceiptdCore
import ReceiptdTools
import Testing

/// Google Play's renewal storm source (issue #48, item 4) on a small seeded database: the renewals it picks from the
/// seed, the stand-in serving each renewed, the pushes it signs beforehand, through the daemons' own intake,
/// processing and re-read to the ledger.
@Suite struct GoogleRenewalStormTests {
    @Test func seededSubscriptionsRenewOnceEachThroughTheirPushes() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            let source = GooglePlayRenewalStorm()
            let appStore = AppStoreStandIn(
                logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            var settings = base
            let url = f.database.connectionString
            _ = try await SubscriptionSeed.write(subscriptions: 240, connectionString: url, chunk: 120)
            let context = RenewalStorm.Context(connectionString: url, appStore: appStore, googlePlay: google)
            let environment = source.daemonEnvironment(context: context)
            settings.googlePlay.oidcCertsURL = try #require(environment["GOOGLE_OIDC_CERTS_URL"])
            settings.googlePlay.pubsubAudience = environment["GOOGLE_PUBSUB_AUDIENCE"]
            settings.googlePlay.pubsubServiceAccountEmail = environment["GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL"]
            let count = 12
            let plan = try await source.prepare(renewals: count, context: context)
            #expect(plan.renewals.count == count && plan.requests.count == count)
            // The next order in the seed's scheme, after the ledger's latest period of the subscription.
            let rows = String(decoding: try JSONEncoder().encode(plan.renewals), as: UTF8.self)
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, transaction_id text,
                                                                         previous_end_ms bigint)
                    JOIN iap.subscriptions s ON s.subscription_id = r.subscription_id
                    JOIN iap.deliveries d ON d.store = 'google' AND d.transaction_id = s.latest_transaction_id
                    WHERE r.transaction_id = split_part(s.subscription_id, ':', 2) || '..'
                              || CASE WHEN s.latest_transaction_id LIKE '%..%'
                                      THEN split_part(s.latest_transaction_id, '..', 2)::int + 1 ELSE 0 END
                      AND d.period_end <= to_timestamp(r.previous_end_ms / 1000.0)
                      AND d.period_end > to_timestamp(r.previous_end_ms / 1000.0) - interval '1 millisecond'
                    """,
                    [rows]
                ) == "\(count)"
            )
            try await f.connection.execute(
                """
                CREATE TEMPORARY TABLE before AS
                SELECT s.subscription_id, r.transaction_id, s.entitled_until
                FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, transaction_id text)
                JOIN iap.subscriptions s USING (subscription_id)
                """,
                [rows]
            )
            let calls = source.storeCalls(context: context)
            try await f.withDaemonsAndGoogleIntake(settings: settings) { intake in
                for request in plan.requests {
                    var post = HTTPClientRequest(url: intake)
                    post.method = .POST
                    post.headers.add(name: "Content-Type", value: "application/json")
                    for (name, value) in request.headers { post.headers.add(name: name, value: value) }
                    post.body = .bytes(ByteBuffer(bytes: request.body))
                    let response = try await HTTPClient.shared.execute(post, timeout: .seconds(10))
                    _ = try await response.body.collect(upTo: 1 << 16)
                    #expect(response.status.code == 200)
                }
                try await f.waitUntil(timeout: .seconds(60)) {
                    try await f.value(
                        """
                        SELECT count(*) FROM before b JOIN iap.subscriptions s USING (subscription_id)
                        JOIN iap.deliveries d ON d.store = 'google' AND d.transaction_id = b.transaction_id
                        WHERE d.order_id = 'renewal:' || b.transaction_id AND s.entitled_until > b.entitled_until
                          AND s.read_due_at > now()
                        """
                    ) == "\(count)"
                }
                try await f.waitUntilSettled()
            }
            // Each new period once, its renewal order's and paid in full by it, a month past the one before.
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM before b JOIN iap.deliveries d ON d.subscription_id = b.subscription_id
                    JOIN iap.orders o ON o.order_id = d.order_id
                    WHERE d.period_end > b.entitled_until AND d.transaction_id = b.transaction_id AND o.outcome = 'full'
                    """
                ) == "\(count)"
            )
            #expect(
                try await f.value(
                    """
                    SELECT count(*) FROM before b JOIN iap.deliveries d ON d.subscription_id = b.subscription_id
                    WHERE d.period_end > b.entitled_until
                    """
                ) == "\(count)"
            )
            // Every push cost at least one subscriptionsv2 read; a later storm picks none of these again.
            #expect(source.storeCalls(context: context) - calls >= count)
            let again = try await source.prepare(renewals: count, context: context)
            #expect(Set(again.renewals.map(\.subscriptionID)).isDisjoint(with: plan.renewals.map(\.subscriptionID)))
        }
    }
}
