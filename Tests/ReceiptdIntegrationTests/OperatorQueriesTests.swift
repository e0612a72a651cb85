import Foundation
import ReceiptdCore
import Testing

@Suite struct OperatorQueriesTests {
    @Test func statusReadsTheViewsInOneSnapshot() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let empty = try await queries.status()
            #expect(empty.states.count == 6 && empty.states.allSatisfy { $0.jobs == 0 })
            #expect(empty.stuckTotal == 0 && empty.recentFailures == 0 && empty.retriesLastHour.isEmpty)

            let lapsed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(lapsed, state: "running", secondsAgo: 120)
            try await f.addAttempt(job: lapsed, number: 1, result: "retry", errorClass: "garbled", httpStatus: 200)
            try await f.enqueue("o2", receipt: Receipts.paying("2"))
            let rejected = try await f.enqueue("o3", receipt: Receipts.paying("3"))
            try await f.setJob(rejected, state: "failed")
            try await f.setOutcome("o3", "invalid")

            let status = try await queries.status()
            #expect(status.jobs(in: .pending) == 1 && status.jobs(in: .running) == 1 && status.jobs(in: .failed) == 1)
            #expect(status.states.first?.dueNow == 1)
            #expect(
                status.stuckTotal == 1 && status.stuckJobs.first?.jobID == lapsed
                    && status.stuckJobs.first?.reason == "lease_expired"
            )
            #expect(status.recentFailures == 1)
            #expect(
                status.retriesLastHour.map(\.errorClass) == ["garbled"] && status.retriesLastHour.first?.retries == 1
            )
        }
    }

    @Test func jobsFiltersByStateOrderAndTimeNewestFirst() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let old = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(old, state: "failed", error: "apple status 21003")
            try await f.connection.execute(
                "UPDATE iap.jobs SET created_at = now() - interval '3 days', finished_at = now() - interval '3 days' WHERE id = $1",
                [old]
            )
            let replaced = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            let current = try await f.enqueue("o2", receipt: Receipts.paying("3"))
            let other = try await f.enqueue("o3", receipt: Receipts.paying("4"))

            #expect(try await queries.jobs(JobFilter()).map(\.id) == [other, current, replaced, old])
            #expect(try await queries.jobs(JobFilter(limit: 2)).map(\.id) == [other, current])
            #expect(try await queries.jobs(JobFilter(state: .pending)).map(\.id) == [other, current])
            #expect(try await queries.jobs(JobFilter(orderID: "o2")).map(\.id) == [current, replaced])
            #expect(
                try await queries.jobs(JobFilter(since: .secondsAgo(86_400))).map(\.id) == [other, current, replaced]
            )
            let fourDaysAgo = Date().addingTimeInterval(-4 * 86_400)
            #expect(try await queries.jobs(JobFilter(state: .failed, since: .instant(fourDaysAgo))).map(\.id) == [old])
            let failed = try #require(try await queries.jobs(JobFilter(state: .failed)).first)
            #expect(
                failed.orderID == "o1" && failed.userID == "u1" && failed.productID == "gems"
                    && failed.lastError == "apple status 21003"
            )
            #expect(failed.createdAt.hasSuffix("Z") && failed.finishedAt != nil)
        }
    }

    @Test func showHasTheOrderEveryJobEveryAttemptAndTheDeliveries() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let replaced = try await f.enqueue("o1", receipt: Receipts.paying("1000000009"))
            let first = try await f.enqueue("o1", receipt: Receipts.paying("1000000001"))
            try await f.setJob(first, state: "succeeded")
            try await f.connection.execute(
                "UPDATE iap.jobs SET attempts = 2, environment = 'Production' WHERE id = $1",
                [first]
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, job_id)
                VALUES ('1000000001', 'o1', 'u1', 'gems', 1, 'Production', $1)
                """,
                [first]
            )
            try await f.connection.execute("UPDATE iap.orders SET delivered_quantity = 1 WHERE order_id = 'o1'")
            try await f.setOutcome("o1", "full")
            try await f.addAttempt(
                job: first,
                number: 1,
                result: "retry",
                errorClass: "http",
                httpStatus: 503,
                error: "HTTP 503"
            )
            try await f.addAttempt(job: first, number: 2, result: "verified", appleStatus: 0, httpStatus: 200)

            let detail = try await queries.show(orderID: "o1")
            #expect(
                detail.order.outcome == "full" && detail.order.deliveredQuantity == 1 && detail.order.outcomeAt != nil
            )
            #expect(detail.jobs.map(\.id) == [replaced, first])
            #expect(detail.jobs.first?.state == .superseded && detail.jobs.first?.supersededBy == first)
            #expect(detail.jobs.first?.attemptLog.isEmpty == true)
            let job = try #require(detail.jobs.last)
            #expect(job.state == .succeeded && job.attempts == 2)
            #expect(job.environment == "Production" && job.kind == .receipt)
            #expect(job.attemptLog.map(\.attempt) == [1, 2])
            #expect(job.attemptLog.first?.httpStatus == 503 && job.attemptLog.first?.error == "HTTP 503")
            #expect(job.attemptLog.last?.appleStatus == 0 && job.attemptLog.last?.durationMs == 1000)
            #expect(detail.deliveries.map(\.transactionID) == ["1000000001"] && detail.deliveries.first?.jobID == first)

            await #expect(throws: OperatorError.notFound("no order nope")) { try await queries.show(orderID: "nope") }
        }
    }

    @Test func webhooksFiltersByStateAndTimeNewestFirstWithTheEndpoint() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            let empty = try await queries.webhooks(WebhookFilter())
            #expect(empty.events.isEmpty && empty.endpoint == WebhookEndpointStatus())

            try await WebhookCommandTests.seedThree(f)
            try await WebhookCommandTests.insert(f, "msg_week", state: "failed", attempts: 8, secondsAgo: 7 * 86_400)
            try await f.configureWebhooks()
            #expect(
                try await queries.webhooks(WebhookFilter()).events.map(\.id) == [
                    "msg_new", "msg_failed", "msg_old", "msg_week",
                ]
            )
            #expect(try await queries.webhooks(WebhookFilter(limit: 2)).events.map(\.id) == ["msg_new", "msg_failed"])
            #expect(
                try await queries.webhooks(WebhookFilter(state: .failed)).events.map(\.id) == [
                    "msg_failed", "msg_week",
                ]
            )
            #expect(
                try await queries.webhooks(WebhookFilter(state: .failed, since: .secondsAgo(86_400))).events.map(\.id)
                    == ["msg_failed"]
            )
            let eightDaysAgo = Date().addingTimeInterval(-8 * 86_400)
            let sixDaysAgo = Date().addingTimeInterval(-6 * 86_400)
            #expect(try await queries.webhooks(WebhookFilter(since: .instant(eightDaysAgo))).events.count == 4)
            #expect(try await queries.webhooks(WebhookFilter(since: .instant(sixDaysAgo))).events.count == 3)
            let listing = try await queries.webhooks(WebhookFilter(state: .pending))
            #expect(listing.endpoint.configured && !listing.endpoint.disabled)
            let event = try #require(listing.events.first)
            #expect(
                event.type == "payment.unclaimed" && event.orderID == nil && event.userID == "u1" && event.attempts == 2
                    && event.nextAttemptAt != nil && event.deliveredAt == nil && event.createdAt.hasSuffix("Z")
            )
            #expect(event.payload == .object(["order_id": .null, "user_id": .string("u1"), "quantity": .integer(2)]))
        }
    }

    @Test func replayAndEnableGoThroughTheOperatorFunctions() async throws {
        try await Fixture.with { f in
            let queries = OperatorQueries(connection: f.connection)
            try await WebhookCommandTests.seedThree(f)
            await #expect(throws: OperatorError.self) { try await queries.replayWebhookEvents(["msg_new", "x"]) }
            #expect(try await f.value("SELECT attempts FROM iap.webhook_events WHERE id = 'msg_new'") == "2")
            let result = try await queries.replayWebhookEvents(["msg_nope", "msg_new", "msg_new"])
            #expect(result.replayed == ["msg_new"] && result.notFound == ["msg_nope"])
            #expect(try await f.value("SELECT attempts FROM iap.webhook_events WHERE id = 'msg_new'") == "0")

            try await f.connection.execute("SELECT iap.disable_webhooks('msg_new')")
            let enabled = try await queries.enableWebhooks(actor: "alice")
            #expect(
                enabled.wasDisabled && enabled.disabledEvent == "msg_new" && enabled.pending == 1 && !enabled.configured
            )
            #expect(try await f.value("SELECT enabled_by FROM iap.webhook_endpoint") == "alice")
            let again = try await queries.enableWebhooks(actor: "")
            #expect(!again.wasDisabled && again.disabledAt == nil && again.pending == 1)
            // No name: the database role is recorded.
            #expect(try await f.value("SELECT enabled_by = session_user FROM iap.webhook_endpoint") == "t")
        }
    }
}
