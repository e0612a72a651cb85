import FakeAppStore
import Foundation
import ReceiptdCore

/// The App Store's renewal storm (issue #48, item 3): `DID_RENEW` notifications of seeded, active, auto-renewing App
/// Store subscriptions, those whose periods end soonest first (a launch week's passes renewing in the same hours). Each
/// carries the next period's signed transaction (it begins where the latest ends and lasts 30 days) and the renewal
/// info and status, all signed by the stand-in's chain before the timing starts: news that leaves nothing open, so the
/// goal is no Server API call at all. The storm has settled when the condition holds
/// (``RenewalStorm/ledgerProgress(store:connection:)``).
///
/// The seed names subscription `k`'s periods `4000000000000000 + 8k + j` (`j` < 7), and its jobs `8k + j`. The new
/// period is the latest's id plus one, which no seeded row uses, and only a subscription whose latest period is the
/// seed's own (its ledger row delivered by job `8k + j`) renews: a later run renews others.
package struct AppStoreRenewalStorm: RenewalStormSource {
    /// Creates one.
    package init() {}

    package var store: Store { .apple }
    package var intakePath: String { "/notifications/apple" }
    package var goalPerSecond: Double { 1_000 }

    /// A monthly pass's period, as the seed's.
    static let periodMilliseconds: Int64 = 30 * 86_400_000
    /// The seed's first App Store transaction id, for `k` = 0.
    static let seedBase: Int64 = 4_000_000_000_000_000

    package func prepare(renewals: Int, context: RenewalStorm.Context) async throws -> RenewalStorm.Plan {
        let connection = try await PostgresConnection.connect(context.connectionString)
        let rows: [QueryResult.Row]
        do {
            rows = try await connection.execute(Self.pick, [renewals, Self.seedBase]).namedRows
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        let subscriptions = try rows.map(Subscription.init)
        let chain = context.appStore.testChain
        // Three signatures each: spread over the cores.
        let parts = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let requests = await withTaskGroup(of: (Int, [RenewalStorm.Request]).self) { group in
            for part in 0..<parts {
                group.addTask {
                    (
                        part,
                        stride(from: part, to: subscriptions.count, by: parts).map {
                            RenewalStorm.Request(body: Array(chain.notificationBody(subscriptions[$0].didRenew(chain))))
                        }
                    )
                }
            }
            var signed = [RenewalStorm.Request?](repeating: nil, count: subscriptions.count)
            for await (part, requests) in group {
                for (offset, request) in requests.enumerated() { signed[part + offset * parts] = request }
            }
            return signed.compactMap { $0 }
        }
        return RenewalStorm.Plan(
            requests: requests,
            renewals: subscriptions.map {
                RenewalStorm.Renewal(
                    subscriptionID: $0.subscriptionID,
                    transactionID: $0.renewalID,
                    previousPeriodEndMilliseconds: $0.expiresMilliseconds
                )
            }
        )
    }

    package func storeCalls(context: RenewalStorm.Context) -> Int {
        context.appStore.recordedServerAPIRequests().count
    }

    /// Active, auto-renewing App Store subscriptions whose latest period is the seed's, ending soonest first. The end
    /// is rounded up to the millisecond: the new period begins at or after it, and no earlier period ends after it.
    static let pick = """
        SELECT s.subscription_id, s.product_id, s.group_id, s.latest_transaction_id,
               ceil(extract(epoch FROM s.expires_at) * 1000)::bigint AS expires_ms,
               (extract(epoch FROM s.created_at) * 1000)::bigint AS created_ms
        FROM iap.subscriptions s
        JOIN iap.deliveries d ON d.store = 'apple' AND d.transaction_id = s.latest_transaction_id
        WHERE s.store = 'apple' AND s.state = 'active' AND s.auto_renew AND s.expires_at > now()
          AND (d.job_id + $2::bigint)::text = s.latest_transaction_id
        ORDER BY s.expires_at, s.subscription_id
        LIMIT $1
        """

    /// One subscription to renew, as the seed left it.
    struct Subscription: Sendable {
        var subscriptionID, productID: String
        var groupID: String?
        var latestTransactionID: Int64
        var expiresMilliseconds, createdMilliseconds: Int64

        init(_ row: QueryResult.Row) throws {
            subscriptionID = try row.string("subscription_id")
            productID = try row.string("product_id")
            groupID = row["group_id"]
            guard let latest = Int64(try row.string("latest_transaction_id")),
                let expires = Int64(try row.string("expires_ms")),
                let created = Int64(try row.string("created_ms"))
            else { throw ToolError("a seeded App Store subscription with unreadable ids or dates") }
            latestTransactionID = latest
            expiresMilliseconds = expires
            createdMilliseconds = created
        }

        /// The subscription's original transaction id (its id without `apple:`).
        var originalTransactionID: String { String(subscriptionID.dropFirst("apple:".count)) }

        /// The new period's transaction id.
        var renewalID: String { String(latestTransactionID + 1) }

        /// Apple's `DID_RENEW` of the next period, with its renewal info and status (1, active).
        func didRenew(_ chain: AppleTestChain) -> AppleNotificationPayload {
            let ends = expiresMilliseconds + AppStoreRenewalStorm.periodMilliseconds
            let transaction = SignedTransactionPayload(
                transactionId: renewalID,
                originalTransactionId: originalTransactionID,
                productId: productID,
                purchaseDate: expiresMilliseconds,
                originalPurchaseDate: createdMilliseconds,
                type: "Auto-Renewable Subscription",
                transactionReason: "RENEWAL",
                price: 4990,
                currency: "USD",
                expiresDate: ends,
                subscriptionGroupIdentifier: groupID,
                webOrderLineItemId: renewalID + ".0"
            )
            let renewal = RenewalInfoPayload(
                originalTransactionId: originalTransactionID,
                productId: productID,
                renewalDate: ends
            )
            return AppleNotificationPayload(
                notificationType: "DID_RENEW",
                signedTransactionInfo: chain.signedTransaction(transaction),
                signedRenewalInfo: chain.signedRenewalInfo(renewal),
                status: 1
            )
        }
    }
}
