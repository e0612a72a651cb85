import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// What operators and the daemons do with the events written: `iap.stuck_jobs` (`webhook_failing`), retention
/// (`iap.purge_finished`), and the claim's order per order (the SQL `PostgresJobQueue.claimWebhookEvents` runs).
extension WebhookEventTests {
    /// Delivers one ledger row `t<n>` to a new order `o<n>` of u1 for each `n`, each writing its `order.verified`.
    static func verifiedOrders(_ f: Fixture, _ numbers: ClosedRange<Int>) async throws {
        for n in numbers { try await RevocationHandOffTests.deliver(f, order: "o\(n)", transaction: "t\(n)") }
    }

    /// The id of the event of `type` (`order.verified` by default) about `order`.
    static func eventID(_ f: Fixture, _ order: String, type: String = "order.verified") async throws -> String {
        try #require(
            try await f.value("SELECT id FROM iap.webhook_events WHERE order_id = $1 AND type = $2", [order, type])
        )
    }

    @Test func stuckJobsShowsFailedAndHourOldPendingEventsAndTheEndpointGone() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.verifiedOrders(f, 1...4)
            let (given, late) = (try await Self.eventID(f, "o1"), try await Self.eventID(f, "o2"))
            // o1's given up after every retry three hours ago, o2's failing for two hours, o3's written half an hour
            // ago, o4's delivered late.
            try await f.connection.execute(
                """
                UPDATE iap.webhook_events
                SET created_at = now() - interval '3 hours', state = 'failed', attempts = 8, last_status = 500,
                    last_error = 'HTTP 500: down'
                WHERE order_id = 'o1'
                """
            )
            try await f.connection.execute(
                """
                UPDATE iap.webhook_events
                SET created_at = now() - interval '2 hours', attempts = 3, last_error = 'no answer within 15 s',
                    next_attempt_at = now() + interval '30 minutes'
                WHERE order_id = 'o2'
                """
            )
            try await f.connection.execute(
                "UPDATE iap.webhook_events SET created_at = now() - interval '30 minutes' WHERE order_id = 'o3'"
            )
            try await f.connection.execute(
                """
                UPDATE iap.webhook_events
                SET created_at = now() - interval '5 hours', state = 'delivered', delivered_at = now() - interval '1 hour'
                WHERE order_id = 'o4'
                """
            )
            let query = """
                SELECT job_id, order_id, state, reason, stuck_seconds, attempts, locked_by, heartbeat_at,
                       run_at > now() + interval '29 minutes' AS later, last_error
                FROM iap.stuck_jobs WHERE reason = 'webhook_failing'
                """
            var rows = try await f.connection.execute(query).namedRows
            #expect(rows.map { $0["order_id"] } == ["o1", "o2"])
            let (failed, pending) = (rows[0], rows[1])
            #expect(
                failed["job_id"] == nil && failed["state"] == "failed" && failed["attempts"] == "8"
                    && failed["locked_by"] == nil && failed["heartbeat_at"] == nil
                    && failed["last_error"] == "order.verified \(given): HTTP 500: down"
            )
            #expect((10_790...10_830).contains(Int(failed["stuck_seconds"] ?? "") ?? -1))
            #expect(
                pending["state"] == "pending" && pending["attempts"] == "3" && pending["later"] == "t"
                    && pending["last_error"] == "order.verified \(late): no answer within 15 s"
            )
            #expect((7_190...7_230).contains(Int(pending["stuck_seconds"] ?? "") ?? -1))

            // The endpoint answered 410 Gone ten minutes ago: one more row, telling what to run.
            let gone = try await Self.eventID(f, "o3")
            #expect(try await f.value("SELECT iap.disable_webhooks($1)", [gone]) == "t")
            try await f.connection.execute(
                "UPDATE iap.webhook_endpoint SET disabled_at = now() - interval '10 minutes'"
            )
            rows = try await f.connection.execute(query).namedRows
            #expect(rows.count == 3)
            let endpoint = try #require(rows.first { $0["order_id"] == nil })
            #expect(
                endpoint["job_id"] == nil && endpoint["state"] == nil && endpoint["attempts"] == "0"
                    && endpoint["later"] == nil
            )
            #expect((590...630).contains(Int(endpoint["stuck_seconds"] ?? "") ?? -1))
            #expect(
                endpoint["last_error"]
                    == "the webhook endpoint answered 410 Gone to \(gone) and is disabled: nothing is sent until an operator runs `receiptd webhooks enable` (2 events wait)"
            )
            // `receiptd status` reads the rows as it reads every stuck job's.
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.stuckTotal == 3)
            #expect(status.stuckJobs.map(\.reason) == ["webhook_failing", "webhook_failing", "webhook_failing"])

            // Enabled again: the endpoint's row goes; the events stay until they are delivered.
            _ = try await f.value("SELECT iap.enable_webhooks('alice')")
            #expect(try await f.connection.execute(query).namedRows.map { $0["order_id"] } == ["o1", "o2"])
            try await f.connection.execute(
                "UPDATE iap.webhook_events SET state = 'delivered', delivered_at = now() WHERE order_id = 'o2'"
            )
            #expect(try await f.connection.execute(query).namedRows.map { $0["order_id"] } == ["o1"])
        }
    }

    @Test func retentionDeletesDeliveredEventsPastItInBatchesAndKeepsPendingAndFailedOnes() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.verifiedOrders(f, 1...6)
            // o1 to o3 delivered two days ago, o4 failed and o5 pending since three days ago, o6 delivered an hour ago.
            try await f.connection.execute(
                """
                UPDATE iap.webhook_events
                SET created_at = now() - interval '3 days',
                    state = CASE order_id WHEN 'o4' THEN 'failed' WHEN 'o5' THEN 'pending' ELSE 'delivered' END,
                    delivered_at = CASE WHEN order_id IN ('o1', 'o2', 'o3') THEN now() - interval '2 days'
                                        WHEN order_id = 'o6' THEN now() - interval '1 hour' END
                """
            )
            // And a job finished two days ago: jobs and events share the batch.
            let job = try await f.enqueue("o-job", receipt: Receipts.paying("9"))
            try await f.setJob(job, state: "succeeded", secondsAgo: 2 * 86_400)
            try await TrustRuleTests.withRoles(f) { roles in
                var rounds: [String?] = []
                for _ in 0..<3 {
                    rounds.append(
                        try await roles.worker.execute("SELECT iap.purge_finished(interval '1 day', 2) AS n").first?[
                            "n"
                        ]
                    )
                }
                #expect(rounds == ["2", "2", "0"])
            }
            #expect(
                try await f.value(
                    "SELECT string_agg(order_id || ':' || state, ',' ORDER BY seq) FROM iap.webhook_events"
                )
                    == "o4:failed,o5:pending,o6:delivered"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "6")
            // Everything past a shorter retention, still never the undelivered ones.
            #expect(try await f.value("SELECT iap.purge_finished(interval '0', 100)") == "1")
            #expect(
                try await f.value("SELECT string_agg(order_id, ',' ORDER BY seq) FROM iap.webhook_events") == "o4,o5"
            )
        }
    }

    @Test func anOrdersLaterEventWaitsForItsEarlierOneUntilDeliveredOrGivenUp() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.verifiedOrders(f, 1...2)
            try await RevocationHandOffTests.revoke(f, "t1")
            try await RevocationHandOffTests.revoke(f, "t2")
            #expect(
                try await Self.written(f) == [
                    "order.verified o1", "order.verified o2", "delivery.revoked o1", "delivery.revoked o2",
                ]
            )
            let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
            let queue = PostgresJobQueue(
                pool: pool,
                owner: "test:1:webhooks",
                planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
            )
            func claim() async throws -> [String] {
                try await queue.claimWebhookEvents(limit: 10, lease: .seconds(60)).map {
                    "\($0.type.rawValue) \($0.orderID ?? "-") \($0.attempts)"
                }
            }
            // The first of each order; each order's second waits while its first is in flight.
            #expect(try await claim() == ["order.verified o1 1", "order.verified o2 1"])
            #expect(try await claim() == [])
            // o2's first delivered, o1's to be sent again in an hour: o2's second goes, o1's still waits.
            let (first1, first2) = (try await Self.eventID(f, "o1"), try await Self.eventID(f, "o2"))
            try await queue.recordWebhookAttempts([
                WebhookAttempt(id: first2, attempts: 1, state: .delivered, status: 204, error: nil),
                WebhookAttempt(
                    id: first1,
                    attempts: 1,
                    state: .pending,
                    retryAfter: .seconds(3600),
                    status: 500,
                    error: "HTTP 500"
                ),
            ])
            #expect(try await claim() == ["delivery.revoked o2 1"])
            #expect(try await claim() == [])
            // o1's first due again, and given up after this attempt: o1's second no longer waits.
            try await f.connection.execute(
                "UPDATE iap.webhook_events SET next_attempt_at = now() WHERE id = $1",
                [first1]
            )
            #expect(try await claim() == ["order.verified o1 2"])
            try await queue.recordWebhookAttempts([
                WebhookAttempt(id: first1, attempts: 2, state: .failed, status: 500, error: "HTTP 500")
            ])
            #expect(try await claim() == ["delivery.revoked o1 1"])
            await pool.close()
            #expect(
                try await f.value("SELECT string_agg(state, ',' ORDER BY seq) FROM iap.webhook_events")
                    == "failed,delivered,pending,pending"
            )
        }
    }
}
