import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Which purchases a verified receipt may deliver: late ones yes; sandbox ones as configured; refunded copies,
/// disagreeing copies and other users' purchases no.
@Suite struct ReceiptTrustTests {
    private static func purchase(
        _ id: String,
        original: String? = nil,
        hoursAgo: Double = 0,
        refunded: Bool = false
    ) -> SyntheticTransaction {
        let milliseconds = String(Int64((Date().timeIntervalSince1970 - hoursAgo * 3600) * 1000))
        return SyntheticTransaction(
            transactionID: id,
            originalTransactionID: original,
            productID: "gems",
            purchaseDateMilliseconds: milliseconds,
            cancellationDateMilliseconds: refunded ? Receipts.nowMilliseconds : nil
        )
    }

    @Test func aReceiptEightHoursLateSettlesItsOrder() async throws {
        try await Fixture.with { f in
            // The app crashed after payment and sends the receipt at its next start: the order is first seen now.
            try await f.enqueue(
                "late",
                receipt: SyntheticReceipt(inApp: [Self.purchase("9001", hoursAgo: 8)]).encoded()
            )
            try await f.enqueue(
                "days",
                user: "u2",
                receipt: SyntheticReceipt(inApp: [Self.purchase("9002", hoursAgo: 72)]).encoded()
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("late")["outcome"] == "full")
            #expect(try await f.order("days")["outcome"] == "full")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "2")
        }
    }

    @Test func sandboxPurchasesAreRefusedWhenConfiguredAndCountedApart() async throws {
        try await Fixture.with { f in
            let sandbox = SyntheticReceipt(environment: "Sandbox", inApp: [Receipts.purchase("9101")]).encoded()
            try await f.enqueue("tester", receipt: sandbox)
            try await f.enqueue("player", user: "u2", receipt: Receipts.paying("9102"))
            let strict = f.settings { $0.daemon.sandbox = .reject }
            try await f.withDaemons(settings: strict) { _ in try await f.waitUntilSettled() }
            let refused = try await f.order("tester")
            #expect(refused["outcome"] == "invalid" && refused["state"] == "failed")
            #expect(refused["last_error"]?.contains("sandbox purchase refused (RECEIPTD_SANDBOX=reject)") == true)
            #expect(try await f.order("player")["outcome"] == "full")

            // Accepted by default, kept as Sandbox in the ledger, and counted apart by `receiptd status`.
            try await f.enqueue(
                "tester-2",
                user: "u3",
                receipt: SyntheticReceipt(environment: "Sandbox", inApp: [Receipts.purchase("9103")]).encoded()
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("tester-2")["outcome"] == "full")
            #expect(
                try await f.value("SELECT environment FROM iap.deliveries WHERE transaction_id = '9103'") == "Sandbox"
            )
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.productionDeliveries == 1 && status.sandboxDeliveries == 1)
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(text.stdout.contains("Deliveries: production 1, sandbox 1"), "\(text.stdout)")
        }
    }

    @Test func aRefundInEitherCopyOfATransactionPaysNothing() async throws {
        try await Fixture.with { f in
            let refundedLater = SyntheticReceipt(
                inApp: [Self.purchase("9201")],
                latestReceiptInfo: [Self.purchase("9201", refunded: true)]
            )
            let refundedFirst = SyntheticReceipt(
                inApp: [Self.purchase("9202", refunded: true)],
                latestReceiptInfo: [Self.purchase("9202")]
            )
            let disagreeing = SyntheticReceipt(
                inApp: [Self.purchase("9203")],
                latestReceiptInfo: [Self.purchase("9203", hoursAgo: 1)]
            )
            try await f.enqueue("later", receipt: refundedLater.encoded())
            try await f.enqueue("first", user: "u2", receipt: refundedFirst.encoded())
            try await f.enqueue("disagree", user: "u3", receipt: disagreeing.encoded())
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            for order in ["later", "first", "disagree"] {
                #expect(try await f.order(order)["outcome"] == "unmatched", "\(order)")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func anotherUsersReceiptPaysNothingAndIsFlagged() async throws {
        try await Fixture.with { f in
            try await f.enqueue(
                "alice-1",
                user: "alice",
                receipt: SyntheticReceipt(inApp: [Self.purchase("9301")]).encoded()
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("alice-1")["outcome"] == "full")
            #expect(
                try await f.value("SELECT user_id FROM iap.transaction_owners WHERE original_transaction_id = '9301'")
                    == "alice"
            )

            // Mallory sends alice's receipt, now carrying a renewal of her purchase and a purchase of his own.
            let shared = SyntheticReceipt(inApp: [
                Self.purchase("9301"), Self.purchase("9302", original: "9301"), Self.purchase("9303"),
            ])
            try await f.enqueue("mallory-1", user: "mallory", receipt: shared.encoded(), quantity: 3)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("mallory-1")
            #expect(row["outcome"] == "partial" && row["delivered_quantity"] == "1")
            #expect(row["last_error"]?.contains("first delivered to another user: 9301 (user alice)") == true)
            #expect(
                try await f.value("SELECT string_agg(transaction_id, ',' ORDER BY transaction_id) FROM iap.deliveries")
                    == "9301,9303"
            )
            let flagged = try await f.row(
                "SELECT order_id, user_id, original_transaction_id, owner_user_id, owner_order_id FROM iap.suspicious_receipts"
            )
            #expect(flagged["order_id"] == "mallory-1" && flagged["user_id"] == "mallory")
            #expect(
                flagged["original_transaction_id"] == "9301" && flagged["owner_user_id"] == "alice"
                    && flagged["owner_order_id"] == "alice-1"
            )
            #expect(try await OperatorQueries(connection: f.connection).status().suspiciousReceipts == 1)
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(text.stdout.contains("Suspicious receipts in the last 24 h: 1"), "\(text.stdout)")

            // Alice's own renewal still reaches her.
            try await f.enqueue(
                "alice-2",
                user: "alice",
                receipt: SyntheticReceipt(inApp: [Self.purchase("9302", original: "9301")]).encoded()
            )
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("alice-2")["outcome"] == "full")
        }
    }
}
