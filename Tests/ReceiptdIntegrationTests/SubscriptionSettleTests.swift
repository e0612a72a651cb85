import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// An auto-renewable's signed transaction settled to its checkout order: the ledger row names the subscription and
/// the period it pays, the subscription is recorded as the transaction says it is, and older news changes nothing.
@Suite struct SubscriptionSettleTests {
    /// A signed transaction of subscription `original`'s period `transactionID`, ending `expiresIn` seconds from
    /// now, signed `signedAgo` seconds ago.
    func period(
        _ f: Fixture,
        _ transactionID: String,
        original: String = "5100",
        product: String = "vip",
        expiresIn: Double,
        signedAgo: Double = 0
    ) -> String {
        let now = SignedTransactionPayload.nowMilliseconds()
        return f.standIn.testChain.signedTransaction(
            SignedTransactionPayload(
                transactionId: transactionID,
                originalTransactionId: original,
                productId: product,
                purchaseDate: now - 60_000,
                type: "Auto-Renewable Subscription",
                signedDate: now - Int64(signedAgo * 1000),
                expiresDate: now + Int64(expiresIn * 1000),
                subscriptionGroupIdentifier: "21000001",
                webOrderLineItemId: "w-" + transactionID
            )
        )
    }

    @Test func aPeriodPaysItsCheckoutAndRecordsTheSubscription() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o-vip', 'vera', 'vip')")
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_subscription")
            try await f.enqueue("o-vip", user: "vera", product: "vip", transaction: period(f, "5100", expiresIn: 3600))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'o-vip'") == "full")
            let owed = try await f.row(
                """
                SELECT transaction_id, subscription_id,
                       round(extract(epoch FROM period_end - period_start))::text AS seconds
                FROM iap.owed_deliveries('vera')
                """
            )
            #expect(owed["transaction_id"] == "5100" && owed["subscription_id"] == "apple:5100")
            #expect(owed["seconds"] == "3660", "\(owed)")
            let row = try await f.row(
                """
                SELECT user_id, order_id, product_id, group_id, state, auto_renew::text, latest_transaction_id,
                       abs(extract(epoch FROM entitled_until - expires_at)) < 1 AS until_expiry
                FROM iap.subscriptions WHERE subscription_id = 'apple:5100'
                """
            )
            #expect(row["user_id"] == "vera" && row["order_id"] == "o-vip" && row["product_id"] == "vip")
            #expect(row["group_id"] == "21000001" && row["state"] == "active" && row["auto_renew"] == "true")
            #expect(row["latest_transaction_id"] == "5100" && row["until_expiry"] == "t")
            let entitled = try await f.row("SELECT kind, subscription_id, state FROM iap.entitlements('vera')")
            #expect(entitled["kind"] == "auto_renewable" && entitled["subscription_id"] == "apple:5100")
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
            await listener.close()
            #expect(notes.contains { $0.channel == "iap_subscription" && $0.payload.contains("\"active\"") })
            #expect(try await f.value("SELECT count(*) FROM iap.subscription_history") == "1")
        }
    }

    @Test func olderNewsOfTheSubscriptionChangesNothing() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o-new', 'vera', 'vip')")
            try await f.connection.execute("SELECT iap.create_order('o-old', 'vera', 'vip')")
            // The newer period first, then a period that ended, signed earlier: the subscription stays active.
            try await f.enqueue(
                "o-new",
                user: "vera",
                product: "vip",
                transaction: period(f, "5202", original: "5200", expiresIn: 3600, signedAgo: 5)
            )
            try await f.withDaemons { _ in
                try await f.waitUntilSettled()
                try await f.enqueue(
                    "o-old",
                    user: "vera",
                    product: "vip",
                    transaction: period(f, "5201", original: "5200", expiresIn: -600, signedAgo: 60)
                )
                try await f.waitUntilSettled()
            }
            #expect(
                try await f.value("SELECT count(*) FROM iap.deliveries WHERE subscription_id = 'apple:5200'") == "2"
            )
            let row = try await f.row(
                "SELECT state, latest_transaction_id FROM iap.subscriptions WHERE subscription_id = 'apple:5200'"
            )
            #expect(row["state"] == "active" && row["latest_transaction_id"] == "5202")
            // An earlier period signed later: newer news, but of a period before the current one, so not the
            // subscription's now (its end is found by the re-read at the entitlement's end).
            try await f.connection.execute("SELECT iap.create_order('o-last', 'vera', 'vip')")
            try await f.enqueue(
                "o-last",
                user: "vera",
                product: "vip",
                transaction: period(f, "5203", original: "5200", expiresIn: -1)
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT state FROM iap.subscriptions") == "active")
            #expect(try await f.value("SELECT count(*) FROM iap.entitlements('vera')") == "1")
        }
    }
}

extension SubscriptionSettleTests {
    @Test func operatorsSeeAPlayersSubscriptionsWithPeriodsAndHistory() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('o-vip', 'vera', 'vip')")
            try await f.enqueue(
                "o-vip",
                user: "vera",
                product: "vip",
                transaction: period(f, "5300", original: "5300", expiresIn: 3600)
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let url = try await f.loginRole(in: "receiptd_operator")
            let json = try ReceiptdBinary.run(["subscriptions", "vera", "--json", "--database-url", url])
            #expect(json.status == 0, "\(json.stderr)")
            let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let vip = try #require(list.first)
            #expect(vip["subscription_id"] as? String == "apple:5300" && vip["state"] as? String == "active")
            #expect((vip["periods"] as? [[String: Any]])?.first?["transaction_id"] as? String == "5300")
            #expect((vip["history"] as? [[String: Any]])?.map { $0["state"] as? String } == ["active"])
            let text = try ReceiptdBinary.run(["subscriptions", "vera", "--database-url", url])
            #expect(text.status == 0 && text.stdout.contains("apple:5300 (apple) vip: active"), "\(text.stdout)")
            #expect(
                try ReceiptdBinary.run(["subscriptions", "nobody", "--database-url", url]).stdout.contains(
                    "No subscriptions."
                )
            )
            #expect(try ReceiptdBinary.run(["subscriptions", " ", "--database-url", url]).status == 2)
        }
    }
}
