import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Whose purchase it is (issue #47, items 3 and 7), through the daemon and the stand-in App Store: a purchase never
/// delivered belongs to the player whose order carries its app account token, whoever presents it first; and a period
/// Apple calls a renewal pays its own renewal order alone.
extension SubscriptionRenewalTests {
    /// The trust a player lost, as `reason`, or nil.
    private func distrust(_ f: Fixture, _ user: String) async throws -> String? {
        try await f.value("SELECT reason FROM iap.user_trust WHERE user_id = $1 AND NOT trusted", [user])
    }

    private func outcome(_ f: Fixture, _ order: String) async throws -> String? {
        try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = $1", [order])
    }

    /// A thief presents the buyer's subscription (its transaction carrying the buyer's checkout token) before the
    /// buyer's client does: the thief's order is `unmatched` and the thief loses trust; the buyer's own presentation
    /// then pays the buyer's checkout and the subscription is the buyer's, under either restore setting. Presented
    /// by the thief once more after that, it is a restore: no more trust lost, and the setting decides who has it.
    @Test(arguments: [SubscriptionRestore.keep, .transfer])
    func aSubscriptionPresentedFirstByAThiefStaysTheBuyers(_ restore: SubscriptionRestore) async throws {
        try await Fixture.with { f in
            let token = UUID()
            try await f.connection.execute(
                "SELECT iap.create_order('o-vera', 'vera', 'vip', 1, $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute("SELECT iap.create_order('o-thief', 'thief', 'vip')")
            let first = f.standIn.subscribe(
                SubscriptionPurchase(
                    transactionID: "7500",
                    productID: "vip",
                    periodSeconds: 3600,
                    appAccountToken: token.uuidString
                )
            )
            let signed = f.standIn.testChain.signedTransaction(first)
            try await f.withDaemons(settings: f.settings { $0.daemon.subscriptionRestore = restore }) { _ in
                try await f.enqueue("o-thief", user: "thief", product: "vip", transaction: signed)
                try await f.waitUntilSettled()
                #expect(try await outcome(f, "o-thief") == "unmatched")
                #expect(try await distrust(f, "thief") == "foreign_transaction")
                #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")

                try await f.enqueue("o-vera", user: "vera", product: "vip", transaction: signed)
                try await f.waitUntilSettled()
                #expect(try await outcome(f, "o-vera") == "full")
                #expect(try await subscription(f, "7500")["user_id"] == "vera")

                try await f.connection.execute("SELECT iap.create_order('o-thief-2', 'thief', 'vip')")
                try await f.enqueue("o-thief-2", user: "thief", product: "vip", transaction: signed)
                try await f.waitUntilSettled()
            }
            #expect(try await outcome(f, "o-thief-2") == "unmatched")
            #expect(try await subscription(f, "7500")["user_id"] == (restore == .keep ? "vera" : "thief"))
            #expect(try await f.value("SELECT count(*) FROM iap.foreign_transactions") == "1")
            #expect(try await distrust(f, "vera") == nil)
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '7500'") == "vera")
        }
    }

    /// The same for a consumable: the thief presenting it first gets nothing and loses trust, the buyer then gets it.
    @Test(arguments: [SubscriptionRestore.keep, .transfer])
    func aConsumablePresentedFirstByAThiefIsStillTheBuyers(_ restore: SubscriptionRestore) async throws {
        try await Fixture.with { f in
            let token = UUID()
            try await f.connection.execute(
                "SELECT iap.create_order('o-vera', 'vera', 'gems', 1, $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute("SELECT iap.create_order('o-thief', 'thief', 'gems')")
            let signed = f.standIn.testChain.signedTransaction(
                SignedTransactionPayload(transactionId: "7600", productId: "gems", appAccountToken: token.uuidString)
            )
            try await f.withDaemons(settings: f.settings { $0.daemon.subscriptionRestore = restore }) { _ in
                try await f.enqueue("o-thief", user: "thief", product: "gems", transaction: signed)
                try await f.waitUntilSettled()
                #expect(try await outcome(f, "o-thief") == "unmatched")
                #expect(try await distrust(f, "thief") == "foreign_transaction")
                try await f.enqueue("o-vera", user: "vera", product: "gems", transaction: signed)
                try await f.waitUntilSettled()
            }
            #expect(try await outcome(f, "o-vera") == "full")
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '7600'") == "vera")
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    /// Under `transfer` the subscription moved to bob; bob's client then presents a renewal (no notification came)
    /// for a fresh checkout: the renewal pays its own order `renewal:<id>`, the checkout ends `unmatched`, and nobody
    /// loses trust.
    @Test func aRenewalPresentedForAFreshCheckoutPaysOnlyItsOwnRenewalOrder() async throws {
        try await Fixture.with { f in
            let settings = f.settings { $0.daemon.subscriptionRestore = .transfer }
            try await f.withDaemonsAndIntake(.apple, settings: settings) { url in
                try await subscribe(f, "7700")
                try await restoreOnBobsAccount(f, "7700")
                #expect(try await subscription(f, "7700")["user_id"] == "bob")
                let renewal = try #require(
                    try await f.standIn.changeSubscription(.renew, "7700", notify: url, deliver: false)
                )
                try await f.connection.execute("SELECT iap.create_order('b-buy2', 'bob', 'vip')")
                try await f.enqueue(
                    "b-buy2",
                    user: "bob",
                    product: "vip",
                    transaction: f.standIn.testChain.signedTransaction(renewal)
                )
                try await f.waitUntilSettled()
                #expect(try await outcome(f, "b-buy2") == "unmatched")
                #expect(
                    try await f.value(
                        "SELECT order_id || ' ' || user_id FROM iap.deliveries WHERE transaction_id = $1",
                        [renewal.transactionId]
                    ) == "renewal:\(renewal.transactionId) bob"
                )
            }
            #expect(try await f.value("SELECT count(*) FROM iap.user_trust WHERE NOT trusted") == "0")
        }
    }
}
