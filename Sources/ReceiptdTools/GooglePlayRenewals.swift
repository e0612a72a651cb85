import FakeAppStore
import Foundation
import ReceiptdCore

/// Google Play's side of a renewal storm on a seeded database (issue #48, item 4): R seeded subscriptions, each
/// renewed once more at the stand-in Google Play and announced by one `SUBSCRIPTION_RENEWED` push.
///
/// Picked from the seeded rows: Google's active, auto-renewing subscriptions whose period still ends within the
/// month (a run renews each by a month, so an earlier run's are never picked again), in the order of their ids.
/// The stand-in serves each token renewed (``GooglePlayStandIn/registerRenewed(_:)``): started when the seed says,
/// the next order in the seed's scheme (`<first order>..<n>`), the period a month past the seeded one, the line item
/// the seeded product. The daemon holds nothing per subscription: its re-read asks the stand-in, as it would ask
/// Google. Every push body and its OIDC token are made before the timing starts.
package struct GooglePlayRenewals: Sendable {
    /// One renewal: the subscription, what the stand-in serves, and its entitlement before the storm.
    package struct Renewal: Sendable {
        /// `iap.subscriptions.subscription_id` (`google:<first order>`).
        package var subscriptionID: String
        /// What the stand-in answers for its token.
        package var renewed: GoogleRenewedSubscription
        /// `entitled_until` before the storm, milliseconds since 1970.
        package var entitledMilliseconds: Int64
    }

    /// How one storm ended, as the database says.
    package struct Completion: Sendable, Equatable {
        /// New periods delivered: a ledger row of the renewal's order id, owned by its `renewal:<order id>` order.
        package var delivered: Int
        /// Subscriptions whose `entitled_until` moved past their value before the storm.
        package var entitlementsMoved: Int
        /// Subscriptions whose re-read is still due.
        package var rereadsDue: Int
        /// Ledger rows of the renewals' periods beyond one each (the ledger's unique key allows none).
        package var duplicates: Int

        /// Every renewal of `count` done, each once.
        package func isComplete(_ count: Int) -> Bool {
            delivered == count && entitlementsMoved == count && rereadsDue == 0 && duplicates == 0
        }
    }

    /// The renewals, in push order.
    package var renewals: [Renewal]

    /// The audience the pushes are signed for, the daemon's `GOOGLE_PUBSUB_AUDIENCE`.
    package static let audience = "receiptd-renewal-storm"
    /// Pushes signed with one OIDC token: Pub/Sub reuses a token for a while too, and the daemon checks every
    /// token's signature whichever it is.
    static let pushesPerToken = 100

    /// Picks `count` renewals from the seeded database at `connectionString`; fewer when the seed has fewer left.
    package static func pick(count: Int, connectionString: String) async throws -> GooglePlayRenewals {
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            let rows = try await connection.execute(pickSQL, [count]).namedRows
            await connection.close()
            return GooglePlayRenewals(
                renewals: try rows.map { row in
                    let latest = periods(latest: try row.string("latest_transaction_id"))
                    return Renewal(
                        subscriptionID: try row.string("subscription_id"),
                        renewed: GoogleRenewedSubscription(
                            token: try row.string("purchase_token"),
                            productID: try row.string("product_id"),
                            firstOrderID: latest.first,
                            periodsBefore: latest.periods,
                            startMilliseconds: Int64(try row.int("start_ms")),
                            expiryMilliseconds: Int64(try row.int("expires_ms")) + Self.month
                        ),
                        entitledMilliseconds: Int64(try row.int("entitled_ms"))
                    )
                }
            )
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The first order and the periods paid of a subscription whose latest period is order `latest`, in the seed's
    /// scheme: `GPA.1` is one period, `GPA.1..0` two, `GPA.1..4` six.
    package static func periods(latest: String) -> (first: String, periods: Int) {
        guard let marker = latest.range(of: "..", options: .backwards), let index = Int(latest[marker.upperBound...]),
            index >= 0
        else { return (latest, 1) }
        return (String(latest[..<marker.lowerBound]), index + 2)
    }

    /// A month of the seed's periods, in milliseconds.
    static let month: Int64 = 30 * 86_400_000

    /// The seeded subscriptions a storm may renew, oldest id first.
    static let pickSQL = """
        SELECT subscription_id, purchase_token, product_id, latest_transaction_id,
               (extract(epoch FROM created_at) * 1000)::bigint AS start_ms,
               (extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms,
               (extract(epoch FROM entitled_until) * 1000)::bigint AS entitled_ms
        FROM iap.subscriptions
        WHERE store = 'google' AND state = 'active' AND auto_renew AND purchase_token IS NOT NULL
          AND entitled_until IS NOT NULL AND expires_at > now() AND expires_at < now() + interval '30 days'
        ORDER BY subscription_id
        LIMIT $1
        """

    /// Makes the stand-in serve every renewal.
    package func register(on googlePlay: GooglePlayStandIn) {
        googlePlay.registerRenewed(renewals.map(\.renewed))
    }

    /// One prepared push: its body and `Authorization` header.
    package struct Push: Sendable {
        package var body: Data
        package var authorization: String
    }

    /// Every renewal's `SUBSCRIPTION_RENEWED` (2) push, Pub/Sub's body signed by the stand-in's OIDC issuer.
    package func pushes(from googlePlay: GooglePlayStandIn) throws -> [Push] {
        let encoder = JSONEncoder()
        var token = ""
        return try renewals.enumerated().map { index, renewal in
            if index % Self.pushesPerToken == 0 {
                token = "Bearer " + googlePlay.oidc.token(audience: Self.audience)
            }
            let notification = GoogleDeveloperNotification.subscription(
                token: renewal.renewed.token,
                productID: renewal.renewed.productID,
                type: 2,
                packageName: googlePlay.packageName
            )
            let body = GooglePlayStandIn.pushBody(
                data: try encoder.encode(notification),
                messageID: String(7_000_000_000_000 + index)
            )
            return Push(body: body, authorization: token)
        }
    }

    /// The daemon's Google Play settings: the stand-in's service account, and pushes as the stand-in signs them.
    static func environment(_ files: GooglePlayFiles) -> [String: String] {
        files.environment.merging([
            "GOOGLE_OIDC_CERTS_URL": files.standIn.oidcCertsURL, "GOOGLE_PUBSUB_AUDIENCE": audience,
            "GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL": GoogleOIDCIssuer.defaultServiceAccountEmail,
        ]) { $1 }
    }

    /// The intake's path for Google's pushes.
    static let intakePath = "/notifications/google"

    /// Ledger rows delivered by jobs after `job` (the seed's last): one index range, whatever the ledger's size, so
    /// it can be polled during the storm; the full check runs once it reaches the storm's size.
    static let progressSQL = "SELECT count(*) AS n FROM iap.deliveries WHERE job_id > $1::bigint AND store = 'google'"

    /// The completion check over every renewal, two index probes each.
    static let completionSQL = """
        SELECT count(d.transaction_id) AS delivered,
               count(*) FILTER (WHERE s.entitled_until > to_timestamp(r.entitled_ms / 1000.0)) AS moved,
               count(*) FILTER (WHERE s.read_due_at <= now()) AS due,
               (SELECT count(*) FROM iap.deliveries x
                WHERE x.store = 'google' AND x.order_id IN (SELECT 'renewal:' || t.transaction_id
                                                            FROM jsonb_to_recordset($1::jsonb)
                                                                 AS t(transaction_id text))) AS in_orders
        FROM jsonb_to_recordset($1::jsonb) AS r(subscription_id text, transaction_id text, entitled_ms bigint)
        JOIN iap.subscriptions s ON s.subscription_id = r.subscription_id
        LEFT JOIN iap.deliveries d ON d.store = 'google' AND d.transaction_id = r.transaction_id
                                   AND d.order_id = 'renewal:' || r.transaction_id
        """

    /// The renewals as the completion check's parameter.
    package func expected() throws -> String {
        let rows = renewals.map {
            [
                "subscription_id": $0.subscriptionID, "transaction_id": $0.renewed.orderID,
                "entitled_ms": NSNumber(value: $0.entitledMilliseconds),
            ] as [String: Any]
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
    }

    /// The storm's state now.
    package func completion(on connection: PostgresConnection, expected: String) async throws -> Completion {
        guard let row = try await connection.execute(Self.completionSQL, [expected]).namedRows.first else {
            throw ToolError("the renewal storm's completion check answered no row")
        }
        let delivered = try row.int("delivered")
        return Completion(
            delivered: delivered,
            entitlementsMoved: try row.int("moved"),
            rereadsDue: try row.int("due"),
            duplicates: max(0, try row.int("in_orders") - delivered)
        )
    }

    /// The store calls the storm cost: `subscriptionsv2` reads and acknowledgements.
    package static func storeCalls(_ googlePlay: GooglePlayStandIn) -> (reads: Int, acknowledgements: Int) {
        (googlePlay.subscriptionReads(), googlePlay.recordedFinalizations().count)
    }
}
