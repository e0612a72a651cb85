import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 36: a subscription bought through each input the game sends, receipts listing every period, two renewals
/// missed in a row, and a renewal whose news comes before its first period.
extension SubscriptionRenewalTests {
    /// What the game sends for a subscription's checkout.
    enum Input: String, CaseIterable {
        case signedTransaction, transactionID, receiptThroughVerifyReceipt, receiptThroughServerAPI
    }

    @Test(arguments: Input.allCases)
    func aPurchaseThroughEachInputPaysItsCheckoutAndEveryLaterPeriodIsItsOwnOrder(_ input: Input) async throws {
        try await Fixture.with { f in
            let settings = f.settings {
                if input == .receiptThroughServerAPI { $0.storeKit.receiptVerifier = .serverAPI }
            }
            try await f.withDaemons(settings: settings) { _ in
                try await f.connection.execute("SELECT iap.create_order('o-8100', 'vera', 'vip')")
                let first = f.standIn.subscribe(
                    SubscriptionPurchase(transactionID: "8100", productID: "vip", periodSeconds: 3600)
                )
                // A receipt lists every period: two renewals happen before the client sends it, their news lost.
                let receipts: Set<Input> = [.receiptThroughVerifyReceipt, .receiptThroughServerAPI]
                if receipts.contains(input) {
                    for _ in 1...2 { try await f.standIn.changeSubscription(.renew, "8100") }
                }
                switch input {
                case .signedTransaction:
                    try await f.enqueue(
                        "o-8100",
                        user: "vera",
                        product: "vip",
                        transaction: f.standIn.testChain.signedTransaction(first)
                    )
                case .transactionID:
                    // An id alone pays only an order whose app account token the purchase carries.
                    let token = UUID(uuidString: "8E5A0000-0000-4000-8000-000000008100")!
                    try await f.connection.execute(
                        "UPDATE iap.orders SET app_account_token = $1::uuid WHERE order_id = 'o-8100'",
                        [token.uuidString]
                    )
                    var purchase = first
                    purchase.appAccountToken = token.uuidString
                    f.standIn.register(purchase)
                    try await f.enqueue(
                        "o-8100",
                        user: "vera",
                        product: "vip",
                        transaction: "8100",
                        appAccountToken: token
                    )
                case .receiptThroughVerifyReceipt:
                    let receipt = try #require(f.standIn.subscriptionReceipt("8100"))
                    try await f.enqueue("o-8100", user: "vera", product: "vip", receipt: receipt.encoded())
                case .receiptThroughServerAPI:
                    try await f.enqueue(
                        "o-8100",
                        user: "vera",
                        product: "vip",
                        receipt: AppReceiptBuilder(inApp: [first]).encoded()
                    )
                }
                try await waitForPeriods(f, "8100", receipts.contains(input) ? 3 : 1)
                try await f.waitUntilSettled()
            }
            let periods = try await f.connection.execute(
                """
                SELECT d.order_id, d.transaction_id, o.user_id, o.outcome::text FROM iap.deliveries d
                JOIN iap.orders o USING (order_id) WHERE d.subscription_id = 'apple:8100' ORDER BY d.period_start
                """
            ).namedRows.map { [$0["order_id"], $0["transaction_id"], $0["user_id"], $0["outcome"]] }
            let expected: [[String?]] =
                [["o-8100", "8100", "vera", "full"]]
                + (input == .signedTransaction || input == .transactionID
                    ? []
                    : [
                        ["renewal:8100001", "8100001", "vera", "full"],
                        ["renewal:8100002", "8100002", "vera", "full"],
                    ])
            #expect(periods == expected)
            let row = try await subscription(f, "8100")
            #expect(row["state"] == "active" && row["entitled"] == "true" && row["user_id"] == "vera", "\(row)")
            #expect(row["latest_transaction_id"] == (periods.last?[1] ?? nil))
            #expect(
                try await f.value("SELECT order_id FROM iap.subscriptions WHERE subscription_id = 'apple:8100'")
                    == "o-8100"
            )
            // Each period is the game's to grant once; none is an unclaimed payment.
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('vera')") == String(periods.count))
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    @Test func aReceiptSentAgainAfterAnotherRenewalDeliversOnlyTheNewPeriod() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                try await f.connection.execute("SELECT iap.create_order('o-8200', 'vera', 'vip')")
                _ = f.standIn.subscribe(
                    SubscriptionPurchase(transactionID: "8200", productID: "vip", periodSeconds: 3600)
                )
                try await f.standIn.changeSubscription(.renew, "8200")
                let receipt = try #require(f.standIn.subscriptionReceipt("8200"))
                try await f.enqueue("o-8200", user: "vera", product: "vip", receipt: receipt.encoded())
                try await waitForPeriods(f, "8200", 2)
                // Auto-renewal turned off, then another receipt for a later order of a consumable: it lists the
                // subscription too, and only its new period is delivered, to its own order.
                try await f.standIn.changeSubscription(.renew, "8200")
                try await f.standIn.changeSubscription(.setAutoRenew(false), "8200")
                let later = try #require(f.standIn.subscriptionReceipt("8200"))
                try await f.enqueue("o-8201", user: "vera", product: "gems", receipt: later.encoded())
                try await waitForPeriods(f, "8200", 3)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'o-8201'") == "unmatched")
            #expect(
                try await f.value("SELECT count(*) FROM iap.deliveries WHERE order_id LIKE 'renewal:8200%'") == "2"
            )
            let row = try await subscription(f, "8200")
            #expect(row["latest_transaction_id"] == "8200002" && row["auto_renew"] == "false", "\(row)")
        }
    }

    @Test func withoutTheSharedSecretAnAutoRenewablesReceiptWaitsAsAnUnconfiguredStore() async throws {
        try await Fixture.with(sharedSecret: nil) { f in
            let settings = f.settings { $0.apple.sharedSecret = nil }
            try await f.withDaemons(settings: settings) { _ in
                try await f.connection.execute("SELECT iap.create_order('o-8300', 'vera', 'vip')")
                _ = f.standIn.subscribe(
                    SubscriptionPurchase(transactionID: "8300", productID: "vip", periodSeconds: 3600)
                )
                let receipt = try #require(f.standIn.subscriptionReceipt("8300"))
                try await f.enqueue("o-8300", user: "vera", product: "vip", receipt: receipt.encoded())
                try await f.waitUntil {
                    try await f.value("SELECT last_error FROM iap.jobs WHERE order_id = 'o-8300'")?.contains(
                        "verifyReceipt for auto-renewable subscriptions is not configured: set APPLE_SHARED_SECRET"
                    ) == true
                }
            }
            let job = try await f.row("SELECT state, attempts FROM iap.jobs WHERE order_id = 'o-8300'")
            #expect(job["state"] == "pending" && job["attempts"] == "0", "\(job)")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.subscriptions") == "0")
            #expect(f.standIn.recordedRequests().allSatisfy { $0.password == nil })
        }
    }

    @Test func twoRenewalsMissedInARowAreBothFoundByOneReRead() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "8400", periodSeconds: 3)
                // Apple renews twice, and neither DID_RENEW arrives; the re-read at the entitlement's end sees the
                // latest period only, and the history the one between.
                try await f.standIn.changeSubscription(.renew, "8400", notify: url, deliver: false)
                try await f.standIn.changeSubscription(.renew, "8400", notify: url, deliver: false)
                try await waitForPeriods(f, "8400", 3)
                try await f.waitUntilSettled()
            }
            let orders = try await f.connection.execute(
                "SELECT order_id FROM iap.deliveries WHERE subscription_id = 'apple:8400' ORDER BY period_start"
            ).namedRows.map { $0["order_id"] }
            #expect(orders == ["o-8400", "renewal:8400001", "renewal:8400002"])
            let calls = f.standIn.recordedServerAPIRequests().map(\.endpoint)
            #expect(calls.contains(.transactionHistory) && calls.contains(.subscriptionStatuses))
        }
    }

    @Test func aRenewalWhoseNewsComesBeforeItsFirstPeriodWaitsAndNeverPaysTheCheckout() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await f.connection.execute(
                    "SELECT iap.create_order('o-8500', 'vera', 'vip', 1, $1::uuid)",
                    ["8E5A0000-0000-4000-8000-000000008500"]
                )
                let first = f.standIn.subscribe(
                    SubscriptionPurchase(
                        transactionID: "8500",
                        productID: "vip",
                        periodSeconds: 3600,
                        appAccountToken: "8E5A0000-0000-4000-8000-000000008500"
                    )
                )
                // DID_RENEW reaches receiptd while the client's first period is still on its way.
                try await f.standIn.changeSubscription(.renew, "8500", notify: url)
                try await f.waitUntil {
                    try await f.value(
                        "SELECT error FROM iap.store_notifications WHERE notification_type = 'DID_RENEW'"
                    )?
                    .contains("waiting for it") == true
                }
                #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "0")
                try await f.enqueue(
                    "o-8500",
                    user: "vera",
                    product: "vip",
                    transaction: f.standIn.testChain.signedTransaction(first),
                    appAccountToken: UUID(uuidString: "8E5A0000-0000-4000-8000-000000008500")
                )
                try await waitForPeriods(f, "8500", 2)
                try await f.waitUntilSettled()
            }
            let orders = try await f.connection.execute(
                "SELECT order_id, transaction_id FROM iap.deliveries WHERE subscription_id = 'apple:8500' ORDER BY period_start"
            ).namedRows.map { [$0["order_id"], $0["transaction_id"]] }
            #expect(orders == [["o-8500", "8500"], ["renewal:8500001", "8500001"]])
            #expect(
                try await f.value("SELECT result FROM iap.store_notifications WHERE notification_type = 'DID_RENEW'")
                    == "period_enqueued"
            )
        }
    }

    /// A client's signed transaction of a first period that ended before it arrived, the renewals' news lost too:
    /// the transaction alone says nothing of renewal, so its subscription is read from Apple at once, never taken
    /// for ended, and both renewals are delivered, each its own order.
    @Test func aLateFirstPeriodHasItsSubscriptionReadAtOnceAndItsRenewalsFound() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o-6250', 'vera', 'vip')")
            let first = f.standIn.subscribe(
                SubscriptionPurchase(transactionID: "6250", productID: "vip", periodSeconds: 2)
            )
            try await f.standIn.changeSubscription(.renew, "6250")
            try await f.standIn.changeSubscription(.renew, "6250")
            try await Task.sleep(for: .milliseconds(2_200))
            try await f.enqueue(
                "o-6250",
                user: "vera",
                product: "vip",
                transaction: f.standIn.testChain.signedTransaction(first)
            )
            try await f.withDaemons { _ in
                try await waitForPeriods(f, "6250", 3)
                try await f.waitUntilSettled()
            }
            #expect(
                try await f.value(
                    "SELECT string_agg(order_id, ',' ORDER BY period_start) FROM iap.deliveries WHERE subscription_id = $1",
                    ["apple:6250"]
                ) == "o-6250,renewal:6250001,renewal:6250002"
            )
            let row = try await subscription(f, "6250")
            #expect(row["state"] == "active" && row["latest_transaction_id"] == "6250002", "\(row)")
        }
    }
}
