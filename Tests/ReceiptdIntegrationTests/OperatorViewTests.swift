import Foundation
import ReceiptdCore
import Testing

@Suite struct OperatorViewTests {
    @Test func queueSummaryCountsEveryStateWithDueAndAges() async throws {
        try await Fixture.with { f in
            let due = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(due, state: "pending", secondsAgo: 120)
            let later = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            try await f.connection.execute(
                "UPDATE iap.jobs SET run_at = now() + interval '1 hour' WHERE id = $1",
                [later]
            )
            try await f.setJob(
                try await f.enqueue("o3", receipt: Receipts.paying("3")),
                state: "running",
                secondsAgo: 10
            )
            try await f.setJob(try await f.enqueue("o4", receipt: Receipts.paying("4")), state: "succeeded")

            let rows = try await f.connection.execute("SELECT * FROM iap.queue_summary").namedRows
            #expect(
                rows.map { $0["state"] } == ["pending", "running", "succeeded", "failed", "superseded", "cancelled"]
            )
            let pending = try #require(rows.first)
            #expect(pending["jobs"] == "2" && pending["due_now"] == "1")
            #expect((120...130).contains(Int(pending["oldest_due_seconds"] ?? "") ?? -1))
            #expect(rows[1]["jobs"] == "1" && (10...20).contains(Int(rows[1]["oldest_heartbeat_seconds"] ?? "") ?? -1))
            #expect(rows[2]["jobs"] == "1" && rows[2]["due_now"] == "0" && rows[2]["oldest_due_seconds"] == nil)
            #expect(rows[3]["jobs"] == "0")
        }
    }

    @Test func recentRetriesCountsTheLastHourByErrorClass() async throws {
        try await Fixture.with { f in
            let a = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            let b = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            try await f.addAttempt(job: a, number: 1, result: "retry", errorClass: "transport", secondsAgo: 600)
            try await f.addAttempt(job: a, number: 2, result: "retry", errorClass: "transport", secondsAgo: 60)
            try await f.addAttempt(job: b, number: 1, result: "retry", errorClass: "transport", secondsAgo: 30)
            try await f.addAttempt(
                job: b,
                number: 2,
                result: "retry",
                errorClass: "http",
                httpStatus: 503,
                secondsAgo: 7_200
            )
            try await f.addAttempt(job: b, number: 3, result: "verified", appleStatus: 0)

            let rows = try await f.connection.execute("SELECT * FROM iap.recent_retries").namedRows
            #expect(rows.count == 1)
            #expect(
                rows.first?["error_class"] == "transport" && rows.first?["retries"] == "3" && rows.first?["jobs"] == "2"
            )
        }
    }

    @Test func stuckJobsAreLapsedLeasesAndOverduePendingJobs() async throws {
        try await Fixture.with { f in
            let lapsed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(lapsed, state: "running", secondsAgo: 90)
            try await f.setJob(
                try await f.enqueue("o2", receipt: Receipts.paying("2")),
                state: "running",
                secondsAgo: 10
            )
            let overdue = try await f.enqueue("o3", receipt: Receipts.paying("3"))
            try await f.setJob(overdue, state: "pending", secondsAgo: 600)
            try await f.setJob(
                try await f.enqueue("o4", receipt: Receipts.paying("4")),
                state: "pending",
                secondsAgo: 60
            )

            let rows = try await f.connection.execute(
                "SELECT job_id, reason, stuck_seconds, locked_by FROM iap.stuck_jobs"
            ).namedRows
            #expect(rows.map { $0["job_id"] } == [String(overdue), String(lapsed)])
            #expect(rows.map { $0["reason"] } == ["overdue", "lease_expired"])
            #expect(rows.last?["locked_by"] == "test-host:1:x")
            #expect((600...610).contains(Int(rows.first?["stuck_seconds"] ?? "") ?? -1))
        }
    }

    @Test func recentFailuresShowsTheLastDayWithTheLatestAttempt() async throws {
        try await Fixture.with { f in
            let rejected = try await f.enqueue("o1", user: "alice", receipt: Receipts.paying("1"))
            try await f.addAttempt(job: rejected, number: 1, result: "retry", errorClass: "http", httpStatus: 503)
            try await f.addAttempt(
                job: rejected,
                number: 2,
                result: "rejected",
                errorClass: "apple_status",
                appleStatus: 21003,
                httpStatus: 200
            )
            try await f.setJob(rejected, state: "failed", secondsAgo: 3_600, error: "apple status 21003")
            try await f.setOutcome("o1", "invalid", secondsAgo: 3_600)
            let old = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            try await f.setJob(old, state: "failed", secondsAgo: 2 * 86_400)
            try await f.setOutcome("o2", "failed", secondsAgo: 2 * 86_400)
            try await f.setJob(try await f.enqueue("o3", receipt: Receipts.paying("3")), state: "succeeded")

            let rows = try await f.connection.execute("SELECT * FROM iap.recent_failures").namedRows
            let row = try #require(rows.first)
            #expect(rows.count == 1)
            #expect(
                row["order_id"] == "o1" && row["user_id"] == "alice" && row["product_id"] == "gems"
                    && row["outcome"] == "invalid"
            )
            #expect(row["job_id"] == String(rejected) && row["last_error"] == "apple status 21003")
            #expect(row["apple_status"] == "21003" && row["http_status"] == "200" && row["attempts"] == "0")
        }
    }

    @Test func anInvalidOrderWhoseJobWasReplacedStillShowsUp() async throws {
        try await Fixture.with { f in
            let first = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(first, state: "failed", secondsAgo: 2 * 86_400)
            let second = try await f.enqueue("o1", receipt: Receipts.paying("2"))
            try await f.setOutcome("o1", "invalid", secondsAgo: 60)

            let rows = try await f.connection.execute("SELECT order_id, job_id, job_state FROM iap.recent_failures")
                .namedRows
            #expect(rows.count == 1)
            #expect(rows.first?["job_id"] == String(second) && rows.first?["job_state"] == "pending")
        }
    }
}
