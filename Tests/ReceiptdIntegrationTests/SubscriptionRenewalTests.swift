import AsyncHTTPClient
import FakeAppStore
import Foundation
import NIOCore
import ReceiptdConsole
import ReceiptdCore
import ReceiptdTools
import Testing

/// Issue 36: an App Store subscription kept current from the store's news, through the stand-in's renewing
/// subscriptions, its signed notifications posted to the intake, and Get All Subscription Statuses: every later
/// period its own order (`renewal:<transaction_id>`) delivered once, the states the news brings, and nothing lost
/// when a notification is.
@Suite struct SubscriptionRenewalTests {
    /// Sells `original` to `user` at checkout `order` and settles its first period through `enqueue_transaction`.
    func subscribe(
        _ f: Fixture,
        _ original: String,
        user: String = "vera",
        order: String? = nil,
        product: String = "vip",
        periodSeconds: Double = 3600,
        ownership: String = "PURCHASED",
        price: Int64 = 4990,
        offer: String? = nil
    ) async throws {
        let order = order ?? "o-\(original)"
        try await f.connection.execute("SELECT iap.create_order($1, $2, $3)", [order, user, product])
        let first = f.standIn.subscribe(
            SubscriptionPurchase(
                transactionID: original,
                productID: product,
                periodSeconds: periodSeconds,
                ownership: ownership,
                price: price,
                offerDiscountType: offer
            )
        )
        try await f.enqueue(
            order,
            user: user,
            product: product,
            transaction: f.standIn.testChain.signedTransaction(first)
        )
        do {
            try await f.waitUntil(timeout: .seconds(10)) {
                try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = $1", [order]) == "full"
            }
        } catch {
            let jobs = try await f.connection.execute("SELECT state, last_error FROM iap.jobs").namedRows
            Issue.record("\(jobs.map { ($0["state"], $0["last_error"]) })")
            throw error
        }
    }

    /// Posts a signed notification to the intake at `url`, as Apple does; expects a 200.
    func post(_ url: String, _ signedPayload: String) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: "{\"signedPayload\":\"\(signedPayload)\"}"))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status == .ok)
    }

    /// The subscription's row: state, product, renews_to, auto_renew, latest transaction, and whether it entitles now.
    func subscription(_ f: Fixture, _ original: String) async throws -> QueryResult.Row {
        try await f.row(
            """
            SELECT state, product_id, renews_to, auto_renew::text, latest_transaction_id, ownership, user_id,
                   (state IN ('active', 'grace_period') AND now() < entitled_until)::text AS entitled
            FROM iap.subscriptions WHERE subscription_id = $1
            """,
            ["apple:" + original]
        )
    }

    /// Bob's client presents `original`'s first period for bob's checkout `o-bob` (a restore on a shared device);
    /// waits until it settled.
    func restoreOnBobsAccount(_ f: Fixture, _ original: String) async throws {
        try await f.connection.execute("SELECT iap.create_order('o-bob', 'bob', 'vip')")
        let first = try #require(f.standIn.subscriptionTransactions(original).first)
        try await f.enqueue(
            "o-bob",
            user: "bob",
            product: "vip",
            transaction: f.standIn.testChain.signedTransaction(first)
        )
        try await f.waitUntilSettled()
    }

    /// Waits until the subscription is in `state`.
    func waitForState(_ f: Fixture, _ original: String, _ state: String) async throws {
        try await f.waitUntil {
            try await f.value("SELECT state FROM iap.subscriptions WHERE subscription_id = $1", ["apple:" + original])
                == state
        }
    }

    /// Waits until the ledger holds `count` periods of the subscription.
    func waitForPeriods(_ f: Fixture, _ original: String, _ count: Int) async throws {
        do {
            try await f.waitUntil(timeout: .seconds(20)) {
                try await f.value(
                    "SELECT count(*) FROM iap.deliveries WHERE subscription_id = $1",
                    ["apple:" + original]
                ) == String(count)
            }
        } catch {
            // What the news and the jobs came to, to say why.
            let notifications = try await f.connection.execute(
                "SELECT notification_type, result, error FROM iap.store_notifications ORDER BY id"
            ).namedRows.map { "\($0["notification_type"] ?? "") \($0["result"] ?? "-") \($0["error"] ?? "")" }
            let jobs = try await f.connection.execute(
                "SELECT order_id, state, last_error FROM iap.jobs ORDER BY id"
            ).namedRows.map { "\($0["order_id"] ?? "") \($0["state"] ?? "") \($0["last_error"] ?? "")" }
            let orders = try await f.connection.execute(
                "SELECT o.order_id, o.outcome::text, d.transaction_id, d.subscription_id FROM iap.orders o LEFT JOIN iap.deliveries d USING (order_id)"
            ).namedRows.map {
                "\($0["order_id"] ?? "") \($0["outcome"] ?? "-") \($0["transaction_id"] ?? "-") \($0["subscription_id"] ?? "-")"
            }
            let attempts = try await f.connection.execute("SELECT row_to_json(a)::text AS a FROM iap.attempts a")
                .namedRows.map { $0["a"] ?? "" }
            let unclaimed = try await f.connection.execute(
                "SELECT row_to_json(a)::text AS a FROM iap.unclaimed_payments a"
            ).namedRows.map { $0["a"] ?? "" }
            Issue.record("notifications: \(notifications); jobs: \(jobs); orders: \(orders); \(attempts) \(unclaimed)")
            throw error
        }
    }

    @Test func threeRenewalsAreEachItsOwnOrderDeliveredAndGrantedOnce() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6100")
                for n in 1...3 {
                    try await f.standIn.changeSubscription(.renew, "6100", notify: url)
                    try await waitForPeriods(f, "6100", n + 1)
                }
                // Apple's retries of each notification, and every notification again: nothing more is delivered.
                for sent in f.standIn.sentNotifications() {
                    try await post(url, sent.signedPayload)
                }
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
                }
                try await f.waitUntilSettled()
            }
            let orders = try await f.connection.execute(
                """
                SELECT d.order_id, o.user_id, o.outcome::text, d.transaction_id FROM iap.deliveries d
                JOIN iap.orders o USING (order_id) WHERE d.subscription_id = 'apple:6100' ORDER BY d.period_start
                """
            ).namedRows
            #expect(
                orders.map { $0["order_id"] } == ["o-6100", "renewal:6100001", "renewal:6100002", "renewal:6100003"]
            )
            #expect(orders.allSatisfy { $0["user_id"] == "vera" && $0["outcome"] == "full" })
            // Each renewal's order has one job, verifying its signed transaction, sent by Apple's notification.
            let jobs = try await f.connection.execute(
                """
                SELECT kind, submitted_by, state::text AS state,
                       receipt_sha256 = encode(sha256(convert_to(receipt_data, 'UTF8')), 'hex') AS hashed
                FROM iap.jobs WHERE order_id LIKE 'renewal:6100%'
                """
            ).namedRows
            #expect(
                jobs.count == 3
                    && jobs.allSatisfy {
                        $0["kind"] == "transaction" && $0["submitted_by"] == "apple_notification"
                            && $0["state"] == "succeeded" && $0["hashed"] == "t"
                    },
                "\(jobs)"
            )
            let owed = try await f.connection.execute(
                "SELECT order_id, subscription_id FROM iap.owed_deliveries('vera')"
            ).namedRows
            #expect(owed.count == 4 && owed.allSatisfy { $0["subscription_id"] == "apple:6100" })
            for row in owed {
                #expect(try await f.value("SELECT iap.mark_granted($1)", [row["order_id"]!]) == "1")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('vera')") == "0")
            let row = try await subscription(f, "6100")
            #expect(row["state"] == "active" && row["latest_transaction_id"] == "6100003" && row["entitled"] == "true")
            // Renewals are no new payments the player chose: no renewal order counts toward trust.
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.store_notifications WHERE result = 'period_enqueued'"
                ) == "3"
            )
        }
    }

    @Test func aLostRenewalIsFoundByTheReReadWhenTheEntitlementEnds() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6200", periodSeconds: 3)
                // Apple renews, and its DID_RENEW never arrives.
                try await f.standIn.changeSubscription(.renew, "6200", notify: url, deliver: false)
                try await waitForPeriods(f, "6200", 2)
                #expect(try await f.value("SELECT count(*) FROM iap.store_notifications") == "0")
            }
            let calls = f.standIn.recordedServerAPIRequests().filter { $0.endpoint == .subscriptionStatuses }
            #expect(calls.first?.transactionID == "6200" && calls.first?.bearerFailure == nil)
            #expect(
                try await f.value("SELECT user_id FROM iap.orders WHERE order_id = 'renewal:6200001'") == "vera"
            )
            let row = try await subscription(f, "6200")
            #expect(row["latest_transaction_id"] == "6200001" && row["state"] == "active", "\(row)")
        }
    }

    @Test func aFailedRenewalGoesThroughGraceAndBillingRetryThenRecoversThenExpires() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6300")
                try await f.standIn.changeSubscription(.failRenewal(graceSeconds: 600), "6300", notify: url)
                try await waitForState(f, "6300", "grace_period")
                #expect(try await subscription(f, "6300")["entitled"] == "true")
                try await f.standIn.changeSubscription(.endGracePeriod, "6300", notify: url)
                try await waitForState(f, "6300", "billing_retry")
                #expect(try await f.value("SELECT count(*) FROM iap.entitlements('vera')") == "0")
                try await f.standIn.changeSubscription(.renew, "6300", notify: url)
                try await waitForPeriods(f, "6300", 2)
                try await waitForState(f, "6300", "active")
                try await f.standIn.changeSubscription(.setAutoRenew(false), "6300", notify: url)
                try await f.waitUntil { try await subscription(f, "6300")["auto_renew"] == "false" }
                try await f.standIn.changeSubscription(.expire, "6300", notify: url)
                try await waitForState(f, "6300", "expired")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.entitlements('vera')") == "0")
            let states = try await f.connection.execute(
                "SELECT state FROM iap.subscription_history WHERE subscription_id = 'apple:6300' ORDER BY id"
            ).namedRows.compactMap { $0["state"] }
            var changes: [String] = []
            for state in states where changes.last != state { changes.append(state) }
            #expect(changes == ["active", "grace_period", "billing_retry", "active", "expired"], "\(states)")
        }
    }

    @Test func anUpgradeChangesTheProductAtOnceAndADowngradeShowsInRenewsTo() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6400")
                try await f.standIn.changeSubscription(.upgrade(to: "vip_plus"), "6400", notify: url)
                try await waitForPeriods(f, "6400", 2)
                try await f.waitUntil { try await subscription(f, "6400")["product_id"] == "vip_plus" }
                try await f.standIn.changeSubscription(.downgrade(to: "vip_lite"), "6400", notify: url)
                try await f.waitUntil { try await subscription(f, "6400")["renews_to"] == "vip_lite" }
                try await f.waitUntilSettled()
            }
            // The replaced period was delivered once, as the first; the upgrade's period is its own order.
            let rows = try await f.connection.execute(
                "SELECT transaction_id, order_id, product_id FROM iap.deliveries ORDER BY period_start"
            ).namedRows
            #expect(rows.map { $0["transaction_id"] } == ["6400", "6400001"])
            #expect(rows.last?["order_id"] == "renewal:6400001" && rows.last?["product_id"] == "vip_plus")
        }
    }

    @Test func refundingTheCurrentPeriodEndsTheEntitlementAndAReversalRestoresIt() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6500")
                try await f.standIn.changeSubscription(.renew, "6500", notify: url)
                try await waitForPeriods(f, "6500", 2)
                // A past period refunded: its row is revoked, the subscription stays as it is.
                try await f.standIn.changeSubscription(.refund(transactionID: "6500"), "6500", notify: url)
                try await f.waitUntil {
                    try await f.value("SELECT revoked_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = '6500'")
                        == "t"
                }
                #expect(try await subscription(f, "6500")["state"] == "active")
                // The current one: its row revoked and the entitlement ended.
                try await f.standIn.changeSubscription(.refund(transactionID: nil), "6500", notify: url)
                try await waitForState(f, "6500", "revoked")
                #expect(try await f.value("SELECT count(*) FROM iap.entitlements('vera')") == "0")
                let handedBack = try await f.connection.execute(
                    "SELECT transaction_id FROM iap.owed_revocations('vera') ORDER BY transaction_id"
                ).namedRows.compactMap { $0["transaction_id"] }
                #expect(handedBack == ["6500", "6500001"])
                try await f.standIn.changeSubscription(.reverseRefund(transactionID: "6500001"), "6500", notify: url)
                try await waitForState(f, "6500", "active")
            }
            #expect(try await subscription(f, "6500")["entitled"] == "true")
            #expect(
                try await f.value("SELECT revoked_at IS NULL FROM iap.deliveries WHERE transaction_id = '6500001'")
                    == "t"
            )
        }
    }

    @Test func notificationsOutOfOrderConvergeOnTheNewest() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await subscribe(f, "6600") }
            // Three renewals and a cancellation happen while receiptd hears nothing; then the notifications arrive
            // newest first.
            for change in [SubscriptionChange.renew, .renew, .setAutoRenew(false)] {
                try await f.standIn.changeSubscription(change, "6600", notify: "http://127.0.0.1:9/", deliver: false)
            }
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                for sent in f.standIn.sentNotifications().reversed() {
                    try await post(url, sent.signedPayload)
                }
                try await waitForPeriods(f, "6600", 3)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
                }
                try await f.waitUntilSettled()
            }
            let row = try await subscription(f, "6600")
            #expect(row["latest_transaction_id"] == "6600002" && row["auto_renew"] == "false", "\(row)")
            #expect(row["state"] == "active")
        }
    }

    @Test func aProductDeclaredWithoutPeriodsIsRecordedGrantedNeverOwed() async throws {
        try await Fixture.with { f in
            try await f.connection.execute(
                "SELECT iap.define_product('apple', 'vip', 'auto_renewable', periods => false)"
            )
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6700")
                try await f.standIn.changeSubscription(.renew, "6700", notify: url)
                try await waitForPeriods(f, "6700", 2)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('vera')") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE granted_at IS NULL") == "0")
            let statuses = try await f.connection.execute("SELECT status FROM iap.orders ORDER BY order_id").namedRows
            #expect(statuses.allSatisfy { $0["status"] == "finished" }, "\(statuses)")
            #expect(try await f.value("SELECT kind FROM iap.entitlements('vera')") == "auto_renewable")
        }
    }

    @Test func aFamilySharedSubscriptionIsTrackedForItsMemberAndEndedByRevoke() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6800", user: "kid", ownership: "FAMILY_SHARED")
                #expect(try await subscription(f, "6800")["ownership"] == "family_shared")
                try await f.standIn.changeSubscription(.revoke, "6800", notify: url)
                try await waitForState(f, "6800", "revoked")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.entitlements('kid')") == "0")
            // Never a payment of the member's: no owner recorded, no trust earned.
            #expect(try await f.value("SELECT count(*) FROM iap.transaction_owners") == "0")
        }
    }

    @Test func renewalOrdersAndFreeTrialsEarnNoTrust() async throws {
        try await Fixture.with { f in
            try await f.connection.execute(
                "INSERT INTO iap.user_trust (user_id, store, trusted, streak, reason) VALUES ('vera', 'apple', false, 0, 'invalid')"
            )
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "6900", price: 0, offer: "FREE_TRIAL")
                try await f.standIn.changeSubscription(.renew, "6900", notify: url)
                try await waitForPeriods(f, "6900", 2)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT streak FROM iap.user_trust WHERE user_id = 'vera'") == "0")
        }
    }

    @Test func subscriptionChangesAreWebhookEvents() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            try await f.withDaemonsAndIntake(.apple, settings: try f.webhookSettings(receiver)) { url in
                try await subscribe(f, "7000")
                try await f.standIn.changeSubscription(.renew, "7000", notify: url)
                try await waitForPeriods(f, "7000", 2)
                try await f.standIn.changeSubscription(.setAutoRenew(false), "7000", notify: url)
                try await f.waitUntil { try await subscription(f, "7000")["auto_renew"] == "false" }
                try await f.standIn.changeSubscription(.expire, "7000", notify: url)
                try await waitForState(f, "7000", "expired")
            }
            try await receiver.shutdown()
            let events = try await f.webhookEvents().filter { $0["type"]?.hasPrefix("subscription.") == true }
            #expect(
                events.map { $0["type"] } == [
                    "subscription.started", "subscription.renewed", "subscription.state_changed",
                    "subscription.expired",
                ]
            )
            #expect(events.allSatisfy { $0["order_id"] == "o-7000" && $0["user_id"] == "vera" })
            #expect(events.last?["payload"]?.contains("\"previous_state\": \"active\"") == true)
        }
    }

    /// Every daemon polls these: each must follow its index under the daemon's `enable_seqscan = off`.
    @Test func theDaemonsSubscriptionStatementsFollowTheirIndexes() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SET enable_seqscan = off")
            for (name, sql, index) in [
                (
                    "claim",
                    PostgresJobQueue.subscriptionReadClaimSQL.replacingOccurrences(of: "$1", with: "60")
                        .replacingOccurrences(of: "$2", with: "'[\"apple\", \"google\"]'"),
                    "subscriptions_read_due"
                ),
                ("figures", SubscriptionFigures.query, "subscriptions_state"),
            ] {
                let plan = try await f.connection.execute("EXPLAIN " + sql).rows.compactMap { $0[0] }
                    .joined(separator: "\n")
                #expect(plan.contains(index) && !plan.contains("Seq Scan"), "\(name): \(plan)")
            }
        }
    }

    /// `receiptd run` SIGKILLed while Apple holds the re-read that finds a renewal whose notification was lost: the
    /// subscription stays leased and unchanged, and the next daemon reads it again once the lease ends and delivers
    /// the renewal once.
    @Test func aDaemonKilledMidRenewalLosesNothingAndDeliversOnce() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await subscribe(f, "7100") }
            // No notification at all, not even in the history the daemon catches up from: only the re-read finds it.
            try await f.standIn.changeSubscription(.renew, "7100")
            try await f.connection.execute("UPDATE iap.subscriptions SET read_due_at = now()")
            f.standIn.scriptSubscriptionStatuses([ScriptStep(delayMilliseconds: 30_000)])
            let files = try StoreKitFiles(standIn: f.standIn, key: f.serverAPIKey)
            defer { files.remove() }
            var environment = ProcessInfo.processInfo.environment
            environment.merge(files.environment) { $1 }
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_SHARED_SECRET": Fixture.sharedSecret, "RECEIPTD_METRICS_ADDR": "",
                "RECEIPTD_POLL_INTERVAL": "0.1", "RECEIPTD_SHUTDOWN_GRACE": "1",
            ]) { $1 }
            let process = try ReceiptdBinary.startDaemon(environment: environment)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await f.waitUntil(timeout: .seconds(15)) {
                f.standIn.recordedServerAPIRequests().contains { $0.endpoint == .subscriptionStatuses }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try await f.value("SELECT read_leased_until > now() FROM iap.subscriptions") == "t")
            let delivered = try await f.connection.execute("SELECT order_id FROM iap.deliveries").namedRows
            #expect(delivered.map { $0["order_id"] } == ["o-7100"])
            // The dead daemon's lease ends (its length is not what this test is about).
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET read_leased_until = now() - interval '1 second'"
            )
            try await f.withDaemons { _ in
                try await waitForPeriods(f, "7100", 2)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE order_id = 'renewal:7100001'") == "1")
            #expect(
                f.standIn.recordedServerAPIRequests().filter { $0.endpoint == .subscriptionStatuses }.count == 2,
                "\(f.standIn.recordedServerAPIRequests().map { ($0.endpoint, $0.transactionID) })"
            )
            #expect(try await subscription(f, "7100")["latest_transaction_id"] == "7100001")
        }
    }

    /// Operators see the subscription beside the orders that paid it: `receiptd show` of a renewal order, the
    /// console's player page, and `receiptd status`'s counts by state.
    @Test func operatorsSeeTheSubscriptionWithItsPeriodsAndHistory() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "7200")
                try await f.standIn.changeSubscription(.renew, "7200", notify: url)
                try await waitForPeriods(f, "7200", 2)
                try await f.waitUntilSettled()
            }
            let queries = OperatorQueries(connection: f.connection)
            let shown = try await queries.show(orderID: "renewal:7200001")
            #expect(shown.subscriptions.map(\.subscriptionID) == ["apple:7200"])
            #expect(shown.subscriptions.first?.periods.map(\.orderID) == ["o-7200", "renewal:7200001"])
            let page = PlayerPage.page(try await queries.player("vera")).body.description
            #expect(page.contains("data-subscription-id=\"apple:7200\"") && page.contains("renewal:7200001"))
            let timeline = try await queries.timeline(orderID: "renewal:7200001")
            #expect(timeline.detail.subscriptions.map(\.subscriptionID) == ["apple:7200"])
            let status = try await queries.status()
            #expect(status.subscriptions.byState == [.active: 1] && status.subscriptions.overdueReads == 0)
        }
    }

    /// Another game account on the same device restores the subscription (its client sends the subscription's
    /// transaction for that account's checkout): nobody loses trust, the restore pays none of that account's orders,
    /// and the subscription (with its later periods) moves to that account only with
    /// `RECEIPTD_SUBSCRIPTION_RESTORE=transfer`, the move kept in its history.
    @Test(arguments: [SubscriptionRestore.keep, .transfer])
    func aRestoreOnAnotherAccountCostsNoTrustAndMovesTheSubscriptionOnlyWhenTold(
        _ restore: SubscriptionRestore
    )
        async throws
    {
        try await Fixture.with { f in
            let settings = f.settings { $0.daemon.subscriptionRestore = restore }
            try await f.withDaemonsAndIntake(.apple, settings: settings) { url in
                try await subscribe(f, "7300")
                try await restoreOnBobsAccount(f, "7300")
                try await f.standIn.changeSubscription(.renew, "7300", notify: url)
                try await waitForPeriods(f, "7300", 2)
                try await f.waitUntilSettled()
            }
            let owner = restore == .keep ? "vera" : "bob"
            #expect(try await subscription(f, "7300")["user_id"] == owner)
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '7300001'") == owner)
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'o-bob'") == "unmatched")
            #expect(try await f.value("SELECT count(*) FROM iap.user_trust WHERE NOT trusted") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.foreign_transactions") == "0")
            let holders = try await f.connection.execute(
                "SELECT DISTINCT user_id FROM iap.subscription_history ORDER BY user_id"
            ).namedRows.compactMap { $0["user_id"] }
            #expect(holders == (restore == .keep ? ["vera"] : ["bob", "vera"]))
        }
    }
}
