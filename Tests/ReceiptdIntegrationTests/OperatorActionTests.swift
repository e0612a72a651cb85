import Foundation
import ReceiptdCore
import Testing

@Suite struct OperatorActionTests {
    @Test func retryTakesAJobIdOrAnOrderIdAndRefusesWhatItMustNot() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let failed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(failed, state: "failed")
            try await f.setOutcome("o1", "failed")

            let byJob = try await queries.retry(String(failed))
            #expect(byJob.orderID == "o1" && byJob.jobID > failed)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [byJob.jobID]) == "pending")
            await #expect(throws: OperatorError.self) { try await queries.retry("o1") }
            try await f.setJob(byJob.jobID, state: "failed")
            #expect(try await queries.retry("o1").orderID == "o1")

            try await f.setJob(try await f.enqueue("paid", receipt: Receipts.paying("2")), state: "succeeded")
            try await f.setOutcome("paid", "full")
            let full = await #expect(throws: OperatorError.self) { try await queries.retry("paid") }
            #expect(full == .refused("retry_order: order paid is already full"))
            await #expect(throws: OperatorError.notFound("no job or order 999999")) {
                try await queries.retry("999999")
            }
        }
    }

    @Test func aNumberIsAJobIdFirstAndAnOrderIdOtherwise() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let job = try await f.enqueue("x", receipt: Receipts.paying("1"))
            try await f.enqueue(String(job), receipt: Receipts.paying("2"))
            try await f.enqueue("777", receipt: Receipts.paying("3"))
            #expect(try await queries.orderID(for: String(job)) == "x")
            #expect(try await queries.orderID(for: "777") == "777")
            #expect(try await queries.orderID(for: "x") == "x")
        }
    }

    @Test func retryFailedRetriesFailedAndInvalidOrdersInTheWindowAndSkipsBusyOnes() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            for (order, outcome, ago) in [
                ("a", "failed", 600), ("b", "invalid", 300), ("old", "failed", 3 * 86_400), ("p", "partial", 60),
            ] {
                try await f.setJob(
                    try await f.enqueue(order, receipt: Receipts.paying(order == "p" ? "9" : "1\(ago)")),
                    state: "failed"
                )
                try await f.setOutcome(order, outcome, secondsAgo: ago)
            }
            try await f.enqueue("busy", receipt: Receipts.paying("5"))
            try await f.setOutcome("busy", "invalid", secondsAgo: 60)

            let result = try await queries.retryFailed(since: .secondsAgo(86_400))
            #expect(result.retried.map(\.orderID) == ["a", "b"])
            #expect(
                result.skipped.map(\.orderID) == ["busy"]
                    && result.skipped.first?.reason.contains("already has pending job") == true
            )
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'pending'") == "3")
        }
    }

    @Test func cancelCancelsTheActiveJobAndRefusesWhenThereIsNone() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let job = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            let cancelled = try await queries.cancel(String(job))
            #expect(cancelled.orderID == "o1" && cancelled.jobID == job)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "cancelled")
            await #expect(throws: OperatorError.refused("order o1 has no pending or running job to cancel")) {
                try await queries.cancel("o1")
            }
            await #expect(throws: OperatorError.notFound("no job or order nope")) { try await queries.cancel("nope") }
        }
    }

    @Test func enqueueStripsWhitespaceAndReportsRefusals() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let receipt = Receipts.paying("1")
            let wrapped =
                "  "
                + stride(from: 0, to: receipt.count, by: 76).map { start in
                    String(receipt.dropFirst(start).prefix(76))
                }.joined(separator: "\n") + "\n"
            let result = try await queries.enqueue(
                EnqueueRequest(
                    orderID: "o1",
                    userID: "u1",
                    productID: "gems",
                    quantity: 2,
                    receiptData: wrapped
                )
            )
            #expect(result.orderID == "o1")
            #expect(try await f.value("SELECT receipt_data FROM iap.jobs WHERE id = $1", [result.jobID]) == receipt)
            #expect(try await f.value("SELECT quantity FROM iap.orders WHERE order_id = 'o1'") == "2")

            let refusal = await #expect(throws: OperatorError.self) {
                try await queries.enqueue(
                    EnqueueRequest(orderID: "o1", userID: "u1", productID: "shield", receiptData: receipt)
                )
            }
            #expect(refusal == .refused("enqueue_receipt: order o1 is for product gems, not shield"))
        }
    }
}
