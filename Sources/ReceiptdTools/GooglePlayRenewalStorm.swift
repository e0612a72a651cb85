import FakeAppStore
import Foundation
import ReceiptdCore

/// Google Play's renewal storm (issue #48, item 4): one `SUBSCRIPTION_RENEWED` Pub/Sub push per seeded subscription
/// renewed, each signed by the stand-in's OIDC issuer before the timing starts. The push says only which token
/// changed, so each costs the daemon a `purchases.subscriptionsv2` read of the stand-in Google Play (at 0 ms); the
/// store calls counted are those reads and any acknowledgement.
///
/// Picked from the seeded rows: Google's active, auto-renewing subscriptions whose period ends within the month (a
/// run renews each by a month, so an earlier run's are never picked again), in the order of their ids. The stand-in
/// serves each token renewed (``GooglePlayStandIn/registerRenewed(_:)``): started when the seed says, the next order
/// in the seed's scheme (`<first order>..<n>`), the period a month past the seeded one, the seeded product. The daemon
/// holds nothing per subscription: its re-read asks the stand-in, as it would ask Google.
package struct GooglePlayRenewalStorm: RenewalStormSource {
    /// Creates one.
    package init() {}

    package var store: Store { .google }
    package var intakePath: String { "/notifications/google" }
    package var goalPerSecond: Double { 800 }

    /// The audience the pushes are signed for, the daemon's `GOOGLE_PUBSUB_AUDIENCE`.
    package static let audience = "receiptd-renewal-storm"
    /// Pushes signed with one OIDC token: Pub/Sub reuses a token for a while too, and the daemon checks the signature
    /// of every push whichever token it carries.
    static let pushesPerToken = 100
    /// A month of the seed's periods, in milliseconds.
    static let month: Int64 = 30 * 86_400_000

    package func prepare(renewals: Int, context: RenewalStorm.Context) async throws -> RenewalStorm.Plan {
        let connection = try await PostgresConnection.connect(context.connectionString)
        let rows: [QueryResult.Row]
        do {
            rows = try await connection.execute(Self.pick, [renewals]).namedRows
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        let picked = try rows.map(Subscription.init)
        let googlePlay = context.googlePlay
        googlePlay.registerRenewed(picked.map(\.renewed))
        let encoder = JSONEncoder()
        var token = ""
        let requests = try picked.enumerated().map { index, subscription in
            if index % Self.pushesPerToken == 0 {
                token = "Bearer " + googlePlay.oidc.token(audience: Self.audience)
            }
            let notification = GoogleDeveloperNotification.subscription(
                token: subscription.renewed.token,
                productID: subscription.renewed.productID,
                type: 2,
                packageName: googlePlay.packageName
            )
            let body = GooglePlayStandIn.pushBody(
                data: try encoder.encode(notification),
                messageID: String(7_000_000_000_000 + index)
            )
            return RenewalStorm.Request(body: Array(body), headers: ["Authorization": token])
        }
        return RenewalStorm.Plan(
            requests: requests,
            renewals: picked.map {
                RenewalStorm.Renewal(
                    subscriptionID: $0.subscriptionID,
                    transactionID: $0.renewed.orderID,
                    previousPeriodEndMilliseconds: $0.previousEndMilliseconds
                )
            }
        )
    }

    /// Pushes as the stand-in signs them.
    package func daemonEnvironment(context: RenewalStorm.Context) -> [String: String] {
        [
            "GOOGLE_OIDC_CERTS_URL": context.googlePlay.oidcCertsURL, "GOOGLE_PUBSUB_AUDIENCE": Self.audience,
            "GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL": GoogleOIDCIssuer.defaultServiceAccountEmail,
        ]
    }

    /// `subscriptionsv2` reads and acknowledgements.
    package func storeCalls(context: RenewalStorm.Context) -> Int {
        context.googlePlay.subscriptionReads() + context.googlePlay.recordedFinalizations().count
    }

    /// The seeded subscriptions a storm may renew, oldest id first. The latest period's end is rounded up to the
    /// millisecond, so that the period it names is never after it.
    static let pick = """
        SELECT subscription_id, purchase_token, product_id, latest_transaction_id,
               (extract(epoch FROM created_at) * 1000)::bigint AS start_ms,
               (extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms,
               ceil(extract(epoch FROM expires_at) * 1000)::bigint AS previous_end_ms
        FROM iap.subscriptions
        WHERE store = 'google' AND state = 'active' AND auto_renew AND purchase_token IS NOT NULL
          AND expires_at > now() AND expires_at < now() + interval '30 days'
        ORDER BY subscription_id
        LIMIT $1
        """

    /// One seeded subscription to renew.
    struct Subscription: Sendable {
        /// `iap.subscriptions.subscription_id` (`google:<first order>`).
        var subscriptionID: String
        /// What the stand-in answers for its token.
        var renewed: GoogleRenewedSubscription
        /// Its latest period's end before the storm, milliseconds since 1970, rounded up.
        var previousEndMilliseconds: Int64

        init(_ row: QueryResult.Row) throws {
            let latest = GooglePlayRenewalStorm.periods(latest: try row.string("latest_transaction_id"))
            subscriptionID = try row.string("subscription_id")
            renewed = GoogleRenewedSubscription(
                token: try row.string("purchase_token"),
                productID: try row.string("product_id"),
                firstOrderID: latest.first,
                periodsBefore: latest.periods,
                startMilliseconds: Int64(try row.int("start_ms")),
                expiryMilliseconds: Int64(try row.int("expires_ms")) + GooglePlayRenewalStorm.month
            )
            previousEndMilliseconds = Int64(try row.int("previous_end_ms"))
        }
    }

    /// The first order and the periods paid of a subscription whose latest period is order `latest`, in the seed's
    /// scheme: `GPA.1` is one period, `GPA.1..0` two, `GPA.1..4` six.
    static func periods(latest: String) -> (first: String, periods: Int) {
        guard let marker = latest.range(of: "..", options: .backwards), let index = Int(latest[marker.upperBound...]),
            index >= 0
        else { return (latest, 1) }
        return (String(latest[..<marker.lowerBound]), index + 2)
    }
}
