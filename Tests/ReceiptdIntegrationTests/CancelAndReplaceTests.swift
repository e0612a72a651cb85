import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct CancelAndReplaceTests {
    @Test func aWaitingJobIsSupersededAndTheNewReceiptRunsNow() async throws {
        try await Fixture.with { f in
            let old = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            // Make the first job a waiting retry, far in the future, with attempts used.
            try await f.connection.execute(
                "UPDATE iap.jobs SET run_at = now() + interval '1 hour', attempts = 3 WHERE id = $1",
                [old]
            )
            let new = try await f.enqueue("o1", receipt: Receipts.paying("2"))
            #expect(new != old)
            let oldRow = try await f.row("SELECT state, superseded_by FROM iap.jobs WHERE id = $1", [old])
            #expect(oldRow["state"] == "superseded" && oldRow["superseded_by"] == String(new))
            let newRow = try await f.row(
                "SELECT state, attempts, run_at <= now() AS due FROM iap.jobs WHERE id = $1",
                [new]
            )
            #expect(newRow["state"] == "pending" && newRow["attempts"] == "0" && newRow["due"] == "t")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.deliveries") == "2")
        }
    }

    @Test func aRunningJobWithTheSameReceiptIsLeftAlone() async throws {
        try await Fixture.with { f in
            let receipt = Receipts.paying("11", delay: 1_500)
            let first = try await f.enqueue("o1", receipt: receipt)
            try await f.withDaemons { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [first]) == "running"
                }
                #expect(try await f.enqueue("o1", receipt: receipt) == first)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["state"] == "succeeded")
            #expect(f.standIn.recordedRequests().count == 1)
        }
    }

    @Test func aRunningJobWithAnotherReceiptIsAbortedAndItsLateAnswerIgnored() async throws {
        try await Fixture.with { f in
            let slowReceipt = Receipts.paying("21", delay: 5_000)
            let slow = try await f.enqueue("o1", receipt: slowReceipt)
            try await f.withDaemons { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [slow]) == "running"
                }
                // Running is not enough: under load the claim can precede the HTTP request, and only a
                // request that reached Apple can be aborted by the client.
                try await f.waitUntil { f.standIn.recordedRequests().contains { $0.receiptData == slowReceipt } }
                let fresh = try await f.enqueue("o1", receipt: Receipts.paying("22"))
                let old = try await f.row("SELECT state, superseded_by FROM iap.jobs WHERE id = $1", [slow])
                #expect(old["state"] == "superseded" && old["superseded_by"] == String(fresh))
                try await f.waitUntilSettled()
                try await f.waitUntil(timeout: .seconds(10)) {
                    f.standIn.recordedRequests().contains { $0.receiptData == slowReceipt && $0.abortedByClient }
                }
                // Past the moment the slow answer would have come: it must not be recorded.
                try await Task.sleep(for: .milliseconds(5_500))
            }
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.deliveries") == "22")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [slow]) == "superseded")
            let abandoned = try #require(f.standIn.recordedRequests().first { $0.receiptData == slowReceipt })
            #expect(abandoned.abortedByClient)
            #expect(try await f.value("SELECT result FROM iap.attempts WHERE job_id = $1", [slow]) == "abandoned")
            #expect(try await f.order("o1")["outcome"] == "full")
        }
    }

    @Test func aFullOrderTakesTheSameReceiptAsANoOpAndVerifiesAnotherOne() async throws {
        try await Fixture.with { f in
            let receipt = Receipts.paying("31")
            let paid = try await f.enqueue("o1", receipt: receipt)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.enqueue("o1", receipt: receipt) == paid)
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
            // Another receipt may carry a second payment (SecondPaymentTests follows it through).
            let other = try await f.enqueue("o1", receipt: Receipts.paying("32"))
            #expect(other != paid)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [other]) == "pending")
        }
    }

    @Test func concurrentEnqueuesForOneOrderLeaveOneActiveJob() async throws {
        try await Fixture.with { f in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let connection = try await f.database.connect()
                        try await connection.execute(
                            "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5)",
                            ["o1", "u1", "gems", Receipts.paying("4\(index)"), 1]
                        )
                        await connection.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'pending'") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'superseded'") == "7")
        }
    }
}
