import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A second payment sent for an order that is already `full` is verified, and recorded as an unclaimed payment;
/// the input that filled the order, sent again, changes nothing.
@Suite struct SecondPaymentTests {
    @Test func aNewSignedTransactionForAFullOrderIsVerifiedAndRecordedAsUnclaimed() async throws {
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            let first = chain.signedTransaction(SignedTransactionPayload(transactionId: "8001", productId: "gems"))
            let second = chain.signedTransaction(SignedTransactionPayload(transactionId: "8002", productId: "gems"))
            let filling = try await f.enqueue("sk2", transaction: first)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("sk2")["outcome"] == "full")

            // The same input again is a no-op; a new one is a new job.
            #expect(try await f.enqueue("sk2", transaction: first) == filling)
            let paying = try await f.enqueue("sk2", transaction: second)
            #expect(paying != filling)
            #expect(
                try await f.value("SELECT state || '/' || kind FROM iap.jobs WHERE id = $1", [paying])
                    == "pending/transaction"
            )
            #expect(try await f.enqueue("sk2", transaction: first) == filling)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }

            let payment = try await f.row(
                "SELECT transaction_id, order_id, user_id, job_id FROM iap.unclaimed_payments"
            )
            #expect(payment["transaction_id"] == "8002" && payment["order_id"] == "sk2" && payment["user_id"] == "u1")
            #expect(payment["job_id"] == String(paying))
            let order = try await f.row(
                "SELECT outcome::text, delivered_quantity, status::text FROM iap.orders WHERE order_id = 'sk2'"
            )
            #expect(order["outcome"] == "full" && order["delivered_quantity"] == "1" && order["status"] == "verified")
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.deliveries") == "8001")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [paying]) == "succeeded")
            // Both inputs again: nothing new to verify.
            #expect(try await f.enqueue("sk2", transaction: second) == paying)
            #expect(try await f.enqueue("sk2", transaction: first) == filling)
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state IN ('pending', 'running')") == "0")
            #expect(f.standIn.recordedRequests().isEmpty)
        }
    }

    @Test func aReceiptWithANewTransactionForAFullOrderIsVerifiedAndRecordedAsUnclaimed() async throws {
        try await Fixture.with { f in
            let purchase = Receipts.purchase("8101")
            let filling = try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: [purchase]).encoded())
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            #expect(try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: [purchase]).encoded()) == filling)

            // The client paid again and sent its receipt, now holding both purchases, for the same order.
            let both = SyntheticReceipt(inApp: [purchase, Receipts.purchase("8102")]).encoded()
            let paying = try await f.enqueue("o1", receipt: both)
            #expect(paying != filling)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(f.standIn.recordedRequests().filter { $0.receiptData == both }.count == 1)
            #expect(
                try await f.value("SELECT transaction_id || '/' || job_id FROM iap.unclaimed_payments")
                    == "8102/\(paying)"
            )
            let order = try await f.row(
                "SELECT outcome::text, delivered_quantity FROM iap.orders WHERE order_id = 'o1'"
            )
            #expect(order["outcome"] == "full" && order["delivered_quantity"] == "1")
            #expect(
                try await f.value("SELECT string_agg(transaction_id || ':' || quantity, ',') FROM iap.deliveries")
                    == "8101:1"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('u1')") == "1")
            #expect(try await f.enqueue("o1", receipt: both) == paying)
        }
    }
}
