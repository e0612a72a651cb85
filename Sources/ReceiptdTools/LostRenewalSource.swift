import FakeAppStore
import Foundation
import ReceiptdCore

/// One store's lost renewals (issue #48, item 5), as a ``RenewalStormSource`` with nothing to post: seeded, active,
/// auto-renewing subscriptions whose latest period is still the seed's reach the end of their entitlement together,
/// `lead` from now, and no news ever comes; the stand-in serves each renewed (Get All Subscription Statuses, or
/// `purchases.subscriptionsv2.get`), so only receiptd's re-read can find the renewals. Their latest period, row and
/// ledger row alike, is made to end then (written without firing triggers, as the seed writes), and the renewal's
/// period begins where it ends.
///
/// `atLimits` leaves the store's documented limit in place (the App Store's Server API rate at its default; the
/// stand-in Google Play refusing over 3,000 queries a minute); otherwise the rate is raised and the stand-ins do not
/// throttle: receiptd's own ceiling.
package struct LostRenewalSource: RenewalStormSource {
    /// The store whose renewals are lost.
    package var store: Store
    /// Whether the store's documented limit holds.
    package var atLimits: Bool
    /// When the entitlements end, from `prepare`.
    package var lead: Duration = .seconds(15)

    /// Google's default quota, per minute.
    package static let googleQueriesPerMinute = 3_000
    /// The App Store's and Google Play's documented limits, in re-reads per second: `APPLE_SERVER_API_RATE`'s default
    /// for Get All Subscription Statuses, which is also Google's default 3,000 queries a minute.
    package static let documentedLimitPerSecond = Double(StoreKitConfiguration().serverAPIRate)
    /// The goal with the limits lifted.
    package static let liftedGoalPerSecond = 500.0
    /// The share of the limit the re-reads must reach at the limits.
    package static let goalShareOfLimit = 0.95

    /// Creates one.
    package init(store: Store, atLimits: Bool) {
        self.store = store
        self.atLimits = atLimits
    }

    package var name: String { "\(store.rawValue) lost renewals, \(atLimits ? "at the limits" : "limits lifted")" }
    package var intakePath: String { store == .apple ? "/notifications/apple" : "/notifications/google" }
    package var goalPerSecond: Double {
        atLimits ? Self.documentedLimitPerSecond * Self.goalShareOfLimit : Self.liftedGoalPerSecond
    }

    package func daemonEnvironment(context: RenewalStorm.Context) -> [String: String] {
        // The highest rate receiptd takes.
        atLimits ? [:] : ["APPLE_SERVER_API_RATE": String(ReceiptdSettings.Bounds.serverAPIRate)]
    }

    package func storeCalls(context: RenewalStorm.Context) -> Int {
        store == .apple ? context.appStore.recordedServerAPIRequests().count : context.googlePlay.subscriptionReads()
    }

    package func prepare(renewals: Int, context: RenewalStorm.Context) async throws -> RenewalStorm.Plan {
        let connection = try await PostgresConnection.connect(context.connectionString)
        do {
            let ends = Int64((Date().timeIntervalSince1970 + lead.seconds) * 1000)
            let rows = try await connection.execute(Self.pick, [renewals, store.rawValue]).namedRows
            let picked = try rows.map(Picked.init)
            let plan = RenewalStorm.Plan(
                requests: [],
                renewals: picked.map {
                    RenewalStorm.Renewal(
                        subscriptionID: $0.subscriptionID,
                        transactionID: renewalID(of: $0),
                        previousPeriodEndMilliseconds: ends
                    )
                }
            )
            let ids = String(decoding: try JSONEncoder().encode(picked.map(\.key)), as: UTF8.self)
            // The seed's own way: the subscription's history and the triggers' notices are not the measurement.
            try await connection.execute("SET session_replication_role = replica")
            try await connection.execute(Self.endSubscriptions, [ids, ends, store.rawValue])
            try await connection.execute(Self.endPeriods, [ids, ends, store.rawValue])
            try await connection.execute("RESET session_replication_role")
            await connection.close()
            register(picked, ends: ends, context: context)
            return plan
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The renewal's ledger id: the App Store's next transaction id; Google's next order in the seed's scheme.
    private func renewalID(of picked: Picked) -> String {
        switch store {
        case .apple: return String((Int64(picked.latestTransactionID) ?? 0) + 1)
        case .google: return googleRenewal(picked, ends: 0).orderID
        }
    }

    private func googleRenewal(_ picked: Picked, ends: Int64) -> GoogleRenewedSubscription {
        let latest = GooglePlayRenewalStorm.periods(latest: picked.latestTransactionID)
        return GoogleRenewedSubscription(
            token: picked.purchaseToken ?? "",
            productID: picked.productID,
            firstOrderID: latest.first,
            periodsBefore: latest.periods,
            startMilliseconds: picked.createdMilliseconds,
            expiryMilliseconds: ends + Self.month
        )
    }

    /// Each subscription served renewed by its store's stand-in: a period from `ends`, a month long.
    private func register(_ picked: [Picked], ends: Int64, context: RenewalStorm.Context) {
        switch store {
        case .apple:
            context.appStore.registerRenewed(
                picked.map {
                    let id = renewalID(of: $0)
                    return SignedTransactionPayload(
                        transactionId: id,
                        originalTransactionId: String($0.subscriptionID.dropFirst("apple:".count)),
                        productId: $0.productID,
                        purchaseDate: ends,
                        originalPurchaseDate: $0.createdMilliseconds,
                        type: "Auto-Renewable Subscription",
                        transactionReason: "RENEWAL",
                        price: 4990,
                        currency: "USD",
                        expiresDate: ends + Self.month,
                        subscriptionGroupIdentifier: $0.groupID,
                        webOrderLineItemId: id + ".0"
                    )
                }
            )
        case .google:
            context.googlePlay.registerRenewed(picked.map { googleRenewal($0, ends: ends) })
        }
    }

    private static let month: Int64 = 30 * 86_400_000

    /// One subscription picked.
    private struct Picked {
        var subscriptionID, productID, latestTransactionID: String
        var groupID, purchaseToken: String?
        var createdMilliseconds: Int64

        init(_ row: QueryResult.Row) throws {
            subscriptionID = try row.string("subscription_id")
            productID = try row.string("product_id")
            latestTransactionID = try row.string("latest_transaction_id")
            groupID = row["group_id"]
            purchaseToken = row["purchase_token"]
            guard let created = Int64(try row.string("created_ms")) else {
                throw ToolError("a seeded subscription with an unreadable creation time")
            }
            createdMilliseconds = created
        }

        /// What the updates join on.
        var key: [String: String] { ["subscription_id": subscriptionID, "latest": latestTransactionID] }
    }

    /// Active, auto-renewing, entitled subscriptions of the store whose latest period the seed delivered (its ledger
    /// row over a day old: no storm or earlier run renewed it), from the highest subscription id down (the storms
    /// take theirs by end, and Google's from the lowest id up).
    static let pick = """
        SELECT s.subscription_id, s.product_id, s.group_id, s.purchase_token, s.latest_transaction_id,
               (extract(epoch FROM s.created_at) * 1000)::bigint AS created_ms
        FROM iap.subscriptions s
        JOIN iap.deliveries d ON d.store = s.store AND d.transaction_id = s.latest_transaction_id
        WHERE s.store = $2 AND s.state = 'active' AND s.auto_renew AND s.entitled_until > now()
          AND d.delivered_at < now() - interval '1 day'
        ORDER BY s.subscription_id DESC
        LIMIT $1
        """

    /// The subscriptions' entitlement and latest period end at `$2` (milliseconds since 1970), and their re-read is
    /// due then, as `iap.subscription_read_due` sets it for an entitled subscription.
    static let endSubscriptions = """
        UPDATE iap.subscriptions s
        SET expires_at = to_timestamp($2::bigint / 1000.0), entitled_until = to_timestamp($2::bigint / 1000.0),
            read_due_at = to_timestamp($2::bigint / 1000.0)
        FROM jsonb_to_recordset($1::jsonb) AS p (subscription_id text, latest text)
        WHERE s.subscription_id = p.subscription_id AND s.store = $3
        """

    /// The ledger rows of their latest periods end then too.
    static let endPeriods = """
        UPDATE iap.deliveries d SET period_end = to_timestamp($2::bigint / 1000.0)
        FROM jsonb_to_recordset($1::jsonb) AS p (subscription_id text, latest text)
        WHERE d.store = $3 AND d.transaction_id = p.latest
        """
}
