import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct OutcomeTests {
    @Test func everyOutcomeIsRecorded() async throws {
        try await Fixture.with { f in
            try await f.enqueue("full", user: "a", receipt: Receipts.paying("101"))
            try await f.enqueue("partial", user: "b", receipt: Receipts.paying("102"), quantity: 2)
            try await f.enqueue("no-in-app", user: "c", receipt: SyntheticReceipt(inApp: []).encoded())
            try await f.enqueue("absent-in-app", user: "c2", receipt: SyntheticReceipt().encoded())
            try await f.enqueue(
                "refunded",
                user: "d",
                receipt: SyntheticReceipt(inApp: [Receipts.purchase("103", refunded: true)]).encoded()
            )
            try await f.enqueue("other-product", user: "e", receipt: Receipts.paying("104", product: "shield"))
            try await f.enqueue("forged", user: "f", receipt: SyntheticReceipt(status: 21003).encoded())
            try await f.enqueue("uuid-id", user: "g", receipt: Receipts.paying("6F9619FF-8B86-D011-B42D-00C04FC964FF"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }

            let expected: [(String, String, String, String)] = [
                ("full", "full", "1", "succeeded"), ("partial", "partial", "1", "succeeded"),
                ("no-in-app", "no_in_app", "0", "succeeded"), ("absent-in-app", "no_in_app", "0", "succeeded"),
                ("refunded", "unmatched", "0", "succeeded"), ("other-product", "unmatched", "0", "succeeded"),
                ("forged", "invalid", "0", "failed"), ("uuid-id", "unmatched", "0", "succeeded"),
            ]
            for (order, outcome, delivered, state) in expected {
                let row = try await f.order(order)
                #expect(row["outcome"] == outcome, "\(order)")
                #expect(row["delivered_quantity"] == delivered, "\(order)")
                #expect(row["state"] == state, "\(order)")
            }
            #expect(try await f.order("forged")["last_error"]?.contains("21003") == true)
            #expect(
                try await f.value("SELECT string_agg(transaction_id, ',' ORDER BY transaction_id) FROM iap.deliveries")
                    == "101,102"
            )
            let ledger = try await f.row(
                "SELECT order_id, user_id, product_id, quantity, environment, job_id IS NOT NULL AS has_job FROM iap.deliveries WHERE transaction_id = '101'"
            )
            #expect(ledger["order_id"] == "full" && ledger["user_id"] == "a" && ledger["product_id"] == "gems")
            #expect(ledger["quantity"] == "1" && ledger["environment"] == "Production" && ledger["has_job"] == "t")
        }
    }

    @Test func sandboxReceiptsAreVerifiedInTheSandboxAndTheSecretIsSent() async throws {
        try await Fixture.with { f in
            let receipt = SyntheticReceipt(environment: "Sandbox", inApp: [Receipts.purchase("201")]).encoded()
            try await f.enqueue("o1", receipt: receipt)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full")
            #expect(row["environment"] == "Sandbox")
            #expect(
                try await f.value("SELECT environment FROM iap.deliveries WHERE transaction_id = '201'") == "Sandbox"
            )
            let requests = f.standIn.recordedRequests()
            #expect(requests.map(\.environment) == [.production, .sandbox])
            #expect(requests.allSatisfy { $0.password == Fixture.sharedSecret && $0.excludeOldTransactions == false })
        }
    }

    @Test func aWrongSharedSecretMakesTheOrderInvalid() async throws {
        try await Fixture.with(sharedSecret: "the-real-secret") { f in
            try await f.enqueue("o1", receipt: Receipts.paying("301"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "invalid")
            #expect(row["last_error"]?.contains("21004") == true)
        }
    }

    @Test func anotherBundleIsInvalid() async throws {
        try await Fixture.with { f in
            try await f.enqueue(
                "o1",
                receipt: SyntheticReceipt(bundleID: "com.evil.clone", inApp: [Receipts.purchase("401")]).encoded()
            )
            try await f.enqueue(
                "o2",
                user: "u2",
                receipt: SyntheticReceipt(bundleID: "com.example.game", inApp: [Receipts.purchase("402")]).encoded()
            )
            let settings = f.settings { $0.daemon.expectedBundleID = "com.example.game" }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "invalid")
            #expect(try await f.order("o2")["outcome"] == "full")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = '401'") == "0")
        }
    }

    @Test func aReplayedTransactionIsDeliveredOnce() async throws {
        try await Fixture.with { f in
            let receipt = Receipts.paying("501")
            try await f.enqueue("first", user: "alice", receipt: receipt)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            try await f.enqueue("second", user: "mallory", receipt: receipt)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("first")["outcome"] == "full")
            #expect(try await f.order("second")["outcome"] == "unmatched")
            #expect(try await f.value("SELECT order_id FROM iap.deliveries WHERE transaction_id = '501'") == "first")
        }
    }

    @Test func aMergedPaymentSettlesTheUsersOtherOrder() async throws {
        try await Fixture.with { f in
            // The shield order's own receipt waits long at Apple; the gems receipt carries both purchases.
            let shieldReceipt = Receipts.paying("602", product: "shield", delay: 60_000)
            let shieldJob = try await f.enqueue("shield-order", product: "shield", receipt: shieldReceipt)
            let both = SyntheticReceipt(inApp: [Receipts.purchase("601"), Receipts.purchase("602", product: "shield")])
                .encoded()
            try await f.withDaemons { _ in
                // Wait for the request itself to reach Apple, so that there is a request to abort.
                try await f.waitUntil { f.standIn.recordedRequests().contains { $0.receiptData == shieldReceipt } }
                let payer = try await f.enqueue("gems-order", receipt: both)
                try await f.waitUntilSettled()
                let shield = try await f.row("SELECT state, superseded_by FROM iap.jobs WHERE id = $1", [shieldJob])
                #expect(shield["state"] == "superseded")
                #expect(shield["superseded_by"] == String(payer))
                // Its daemon was told and abandoned the request, long before Apple's (delayed) answer.
                try await f.waitUntil(timeout: .seconds(10)) {
                    f.standIn.recordedRequests().contains { $0.receiptData == shieldReceipt && $0.abortedByClient }
                }
            }
            #expect(try await f.order("gems-order")["outcome"] == "full")
            let shield = try await f.row(
                "SELECT outcome::text, delivered_quantity FROM iap.orders WHERE order_id = 'shield-order'"
            )
            #expect(shield["outcome"] == "full" && shield["delivered_quantity"] == "1")
            #expect(
                try await f.value("SELECT order_id FROM iap.deliveries WHERE transaction_id = '602'") == "shield-order"
            )
        }
    }

    @Test func aLaterReceiptRaisesAPartialOrder() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("701"), quantity: 2)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "partial")
            try await f.enqueue("o1", receipt: Receipts.paying("701", "702"), quantity: 2)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["delivered_quantity"] == "2")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE order_id = 'o1'") == "2")
        }
    }
}
