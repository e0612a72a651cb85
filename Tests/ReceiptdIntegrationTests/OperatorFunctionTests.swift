import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct OperatorFunctionTests {
    @Test func retryOrderMakesADueJobWithTheLatestReceiptAndWakesDaemons() async throws {
        try await Fixture.with { f in
            let receipt = Receipts.paying("1")
            let failed = try await f.enqueue("o1", receipt: receipt)
            try await f.connection.execute(
                "UPDATE iap.jobs SET attempts = 5, run_at = now() - interval '1 day' WHERE id = $1",
                [failed]
            )
            try await f.setJob(failed, state: "failed", error: "transport: timed out")
            try await f.setOutcome("o1", "failed")
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_jobs")

            let fresh = try #require(try await f.value("SELECT iap.retry_order('o1')").flatMap { Int64($0) })
            let job = try await f.row(
                "SELECT state, attempts, receipt_data, run_at <= now() AS due FROM iap.jobs WHERE id = $1",
                [fresh]
            )
            #expect(fresh > failed)
            #expect(
                job["state"] == "pending" && job["attempts"] == "0" && job["due"] == "t"
                    && job["receipt_data"] == receipt
            )
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
            #expect(notes.contains { $0.channel == "iap_jobs" && $0.payload == String(fresh) })
            await listener.close()
            // The old job is history, untouched.
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [failed]) == "failed")
        }
    }

    @Test func retryOrderKeepsTheJobsKindSenderAndInput() async throws {
        try await Fixture.with { f in
            // Another account on the device sent a signed transaction; a Google token was sent for another order.
            let jws = f.standIn.testChain.signedTransaction(
                SignedTransactionPayload(transactionId: "7301", productId: "gems")
            )
            try await f.connection.execute("SELECT iap.create_order('sk2', 'alice', 'gems')")
            let transaction = try await f.enqueue("sk2", user: "bob", transaction: jws)
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.7302").encoded()
            let google = try #require(
                try await f.value("SELECT iap.enqueue_google_purchase('gp', 'carol', 'gems', $1)", [token])
                    .flatMap { Int64($0) }
            )
            for (job, order) in [(transaction, "sk2"), (google, "gp")] {
                try await f.setJob(job, state: "failed", error: "transport: timed out")
                try await f.setOutcome(order, "failed")
            }
            let inputs = "SELECT kind, submitted_by, receipt_data, receipt_sha256 FROM iap.jobs WHERE id = $1"
            for (job, order, kind) in [(transaction, "sk2", "transaction"), (google, "gp", "google_purchase")] {
                let fresh = try #require(try await f.value("SELECT iap.retry_order($1)", [order]).flatMap { Int64($0) })
                let old = try await f.row(inputs, [job])
                let new = try await f.row(inputs, [fresh])
                #expect(new["kind"] == kind, "\(order)")
                for column in ["kind", "submitted_by", "receipt_data", "receipt_sha256"] {
                    #expect(new[column] == old[column], "\(order) \(column)")
                }
            }
            // The retried signed transaction is verified as one: offline, without asking Apple, and it pays the order.
            _ = try await f.value("SELECT iap.cancel_order('gp')")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("sk2")
            #expect(order["outcome"] == "full" && order["state"] == "succeeded", "\(order["last_error"] ?? "")")
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '7301'") == "alice")
            #expect(f.standIn.recordedRequests().isEmpty)
        }
    }

    @Test func retryOrderRefusesFullOrdersActiveJobsAndUnknownOrders() async throws {
        try await Fixture.with { f in
            try await f.enqueue("active", receipt: Receipts.paying("1"))
            try await f.setJob(try await f.enqueue("paid", receipt: Receipts.paying("2")), state: "succeeded")
            try await f.setOutcome("paid", "full")

            let busy = await #expect(throws: PostgresError.self) {
                try await f.value("SELECT iap.retry_order('active')")
            }
            #expect(busy?.sqlState == "55000" && busy?.message.contains("already has pending job") == true)
            let full = await #expect(throws: PostgresError.self) { try await f.value("SELECT iap.retry_order('paid')") }
            #expect(full?.sqlState == "55000" && full?.message.contains("already full") == true)
            let unknown = await #expect(throws: PostgresError.self) {
                try await f.value("SELECT iap.retry_order('nope')")
            }
            #expect(unknown?.sqlState == "P0002")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "2")
        }
    }

    @Test func cancelOrderCancelsThePendingJobAndReportsNothingLeftAfterwards() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            #expect(try await f.value("SELECT iap.cancel_order('o1')") == "1")
            let row = try await f.row(
                "SELECT state, finished_at IS NOT NULL AS finished, locked_by, last_error FROM iap.jobs WHERE id = $1",
                [job]
            )
            #expect(row["state"] == "cancelled" && row["finished"] == "t" && row["locked_by"] == nil)
            #expect(row["last_error"] == "cancelled by postgres")
            #expect(try await f.value("SELECT iap.cancel_order('o1')") == "0")
            let unknown = await #expect(throws: PostgresError.self) {
                try await f.value("SELECT iap.cancel_order('nope')")
            }
            #expect(unknown?.sqlState == "P0002")
            // A cancelled order can be retried with the same receipt.
            let again = try #require(try await f.value("SELECT iap.retry_order('o1')").flatMap { Int64($0) })
            #expect(
                try await f.value("SELECT receipt_data FROM iap.jobs WHERE id = $1", [again])
                    == (try await f.value("SELECT receipt_data FROM iap.jobs WHERE id = $1", [job]))
            )
        }
    }

    @Test func cancellingARunningJobAbortsItsDaemonAndItsAnswerIsNeverRecorded() async throws {
        try await Fixture.with { f in
            let slowReceipt = Receipts.paying("21", delay: 5_000)
            let slow = try await f.enqueue("o1", receipt: slowReceipt)
            try await f.withDaemons { _ in
                // Cancel once Apple has the request in hand, so there is a request to abort.
                try await f.waitUntil { f.standIn.recordedRequests().contains { $0.receiptData == slowReceipt } }
                #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [slow]) == "running")
                #expect(try await f.value("SELECT iap.cancel_order('o1')") == "1")
                try await f.waitUntil(timeout: .seconds(10)) {
                    f.standIn.recordedRequests().contains { $0.receiptData == slowReceipt && $0.abortedByClient }
                }
                // Past the moment the answer would have come (5 s after the request): it must not be recorded.
                try await Task.sleep(for: .milliseconds(5_500))
            }
            let job = try await f.row("SELECT state, locked_by FROM iap.jobs WHERE id = $1", [slow])
            #expect(job["state"] == "cancelled" && job["locked_by"] == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
            let order = try await f.row("SELECT outcome, delivered_quantity FROM iap.orders WHERE order_id = 'o1'")
            #expect(order["outcome"] == nil && order["delivered_quantity"] == "0")
            let request = try #require(f.standIn.recordedRequests().first { $0.receiptData == slowReceipt })
            #expect(request.abortedByClient)
        }
    }
}
