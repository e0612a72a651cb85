import Foundation
import ReceiptdCore
import Testing

/// The queries behind the console's pages, against a real database: search, the player, the order timeline and
/// the overview's charts.
@Suite struct ConsoleQueriesTests {
    /// u1's order o1 paid by ledger row 1000000001 (original id orig-1), an unclaimed Apple payment tx-lost and a
    /// Google one with token tok-lost, and u2's Google order g1 of token tok-g1 with its acknowledgement owed.
    static func seedSearchable(_ f: Fixture) async throws {
        let job = try await f.enqueue("o1", receipt: Receipts.paying("1000000001"))
        try await f.connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, job_id)
            VALUES ('1000000001', 'o1', 'u1', 'gems', 1, 'Production', $1)
            """,
            [job]
        )
        try await f.script(
            """
            INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id) VALUES ('orig-1', 'u1', 'o1');
            INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, user_id, order_id, job_id)
                SELECT 'tx-lost', 'shield', 1, 'u1', 'o1', id FROM iap.jobs WHERE order_id = 'o1';
            INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, store, purchase_token)
                VALUES ('GPA.lost', 'coins', 1, 'google', 'tok-lost');
            """
        )
        try await f.connection.execute("SELECT iap.enqueue_google_purchase('g1', 'u2', 'coins', 'tok-g1', 1)")
        try await f.script(
            """
            INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action)
                VALUES ('GPA.g1', 'g1', 'coins', 'tok-fin', 'consume');
            """
        )
    }

    @Test func searchFindsUsersOrdersTransactionsAndTokens() async throws {
        try await Fixture.with { f in
            try await Self.seedSearchable(f)
            let queries = OperatorQueries(connection: f.connection)
            #expect(
                try await queries.search("u1") == [SearchHit(kind: .player, id: "u1", matched: "user id", userID: "u1")]
            )
            let order = try await queries.search(" o1\n")
            #expect(order.map(\.kind) == [.order] && order.first?.id == "o1" && order.first?.matched == "order id")
            #expect(order.first?.userID == "u1" && order.first?.productID == "gems")
            #expect(
                try await queries.search("1000000001").map { "\($0.kind.rawValue) \($0.id) \($0.matched)" } == [
                    "order o1 transaction id"
                ]
            )
            #expect(try await queries.search("orig-1").map(\.id) == ["o1"])
            #expect(
                try await queries.search("tx-lost").map { "\($0.kind.rawValue) \($0.id)" } == [
                    "unclaimed_payment tx-lost"
                ]
            )
            #expect(
                try await queries.search("tok-lost").map { "\($0.kind.rawValue) \($0.id)" } == [
                    "unclaimed_payment GPA.lost"
                ]
            )
            #expect(
                try await queries.search("tok-g1").map { "\($0.kind.rawValue) \($0.id) \($0.matched)" } == [
                    "order g1 purchase token"
                ]
            )
            #expect(try await queries.search("tok-fin").map(\.id) == ["g1"])
            #expect(try await queries.search("nothing-here").isEmpty)
            #expect(try await queries.search("   ").isEmpty)
            // A text that is a user id and an order id at once finds both.
            try await f.enqueue("u2", user: "u9", receipt: Receipts.paying("5"))
            #expect(try await queries.search("u2").map { "\($0.kind.rawValue) \($0.id)" } == ["player u2", "order u2"])
        }
    }

    @Test func everyBranchOfTheSearchReadsAnIndex() async throws {
        try await Fixture.with { f in
            try await Self.seedSearchable(f)
            // With sequential scans priced out, a branch without a usable index would still show one.
            let plan = try await f.connection.withSession { session in
                try session.transaction { session in
                    try session.execute("SET LOCAL enable_seqscan = off")
                    return try session.execute("EXPLAIN " + OperatorQueries.searchQuery, ["tok-g1"]).rows
                        .compactMap { $0.first ?? nil }.joined(separator: "\n")
                }
            }
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            for index in ["orders_user", "jobs_google_token", "google_finalizations_token", "unclaimed_payments_token"]
            {
                #expect(plan.contains(index), "\(index) not in \(plan)")
            }
        }
    }

    @Test func playerHasOrdersOwedDeliveriesRevocationsTrustUnclaimedAndFlags() async throws {
        try await Fixture.with { f in
            try await Self.seedSearchable(f)
            let second = try await f.enqueue("o2", receipt: Receipts.paying("2"))
            try await f.connection.execute(
                "UPDATE iap.orders SET created_at = now() + interval '1 second' WHERE order_id = 'o2'"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, job_id, revoked_at,
                                            revocation_reason)
                VALUES ('2', 'o2', 'u1', 'gems', 1, $1, now(), 'refund_other')
                """,
                [second]
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.foreign_transactions (job_id, order_id, user_id, original_transaction_id, owner_user_id)
                VALUES ($1, 'o2', 'u1', 'orig-x', 'someone')
                """,
                [second]
            )
            try await f.enqueue("other", user: "u3", receipt: Receipts.paying("3"))

            let player = try await OperatorQueries(connection: f.connection).player("u1")
            #expect(player.orders.map(\.orderID) == ["o2", "o1"] && !player.moreOrders)
            #expect(player.orders.last?.status == "pending" && player.orders.last?.productID == "gems")
            #expect(player.owedDeliveries.map(\.transactionID) == ["1000000001"])
            #expect(
                player.owedRevocations.map(\.transactionID) == ["2"]
                    && player.owedRevocations.first?.reason == "refund_other"
            )
            #expect(player.trust.map(\.store) == [.apple, .google])
            #expect(player.unclaimed.map(\.transactionID) == ["tx-lost"])
            #expect(
                player.suspicious.map(\.originalTransactionID) == ["orig-x"]
                    && player.suspicious.first?.ownerUserID == "someone"
            )

            let nobody = try await OperatorQueries(connection: f.connection).player("nobody")
            #expect(nobody.orders.isEmpty && nobody.owedDeliveries.isEmpty && nobody.unclaimed.isEmpty)
        }
    }

    @Test func timelineHasEveryEventOldestFirstWithTheOperatorsActions() async throws {
        try await Fixture.with { f in
            let first = try await f.enqueue("o1", receipt: Receipts.paying("1000000001"))
            try await f.setJob(first, state: "failed", secondsAgo: 50, error: "store said no")
            try await f.addAttempt(
                job: first,
                number: 1,
                result: "rejected",
                errorClass: "apple_status",
                appleStatus: 21003,
                httpStatus: 200,
                error: "status 21003",
                secondsAgo: 50
            )
            try await f.script(
                """
                UPDATE iap.orders SET created_at = now() - interval '60 seconds' WHERE order_id = 'o1';
                UPDATE iap.jobs SET created_at = now() - interval '55 seconds' WHERE order_id = 'o1';
                """
            )
            let queries = OperatorQueries(connection: f.connection, actor: "agent")
            let retried = try await queries.retry(orderID: "o1")
            try await f.setJob(retried.jobID, state: "succeeded", secondsAgo: 0)
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, job_id, delivered_at,
                                            granted_at, revoked_at, revocation_reason)
                VALUES ('1000000001', 'o1', 'u1', 'gems', 1, $1, now() + interval '1 second', now() + interval '2 seconds',
                        now() + interval '3 seconds', 'refund_other')
                """,
                [retried.jobID]
            )
            try await WebhookCommandTests.insert(f, "msg_timeline", state: "pending")
            try await f.connection.execute(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, environment,
                                                     source, payload, received_at)
                VALUES ('apple', 'n-1', 'REFUND', '1000000001', 'Production', 'push', '{}', now() + interval '3 seconds')
                """
            )
            // A refusal is recorded too: o1 has no active job to cancel.
            await #expect(throws: OperatorError.self) { try await queries.cancel(orderID: "o1") }

            let timeline = try await queries.timeline(orderID: "o1")
            #expect(timeline.status == "pending" && timeline.detail.order.orderID == "o1")
            let events = timeline.events
            #expect(events.map(\.at) == events.map(\.at).sorted())
            #expect(events.first?.kind == .checkout)
            let kinds = Set(events.map(\.kind))
            #expect(
                kinds == [.checkout, .job, .attempt, .delivery, .grant, .notification, .revocation, .webhook, .action]
            )
            let attempt = try #require(events.first { $0.kind == .attempt })
            #expect(attempt.fields.contains { $0.name == "store status" && $0.value == "21003" })
            #expect(attempt.error == "status 21003")
            let delivery = try #require(events.first { $0.kind == .delivery })
            #expect(delivery.fields.contains { $0.name == "transaction id" && $0.value == "1000000001" })
            let actions = events.filter { $0.kind == .action }
            #expect(actions.count == 2 && actions.allSatisfy { $0.title.hasSuffix("by agent") })
            #expect(actions.last?.error?.hasPrefix("refused:") == true)
            #expect(timeline.actions.first?.sessionUser.isEmpty == false)
            #expect(timeline.grantedAt["1000000001"] != nil)
            // A ledger id names its order too; an unknown id is not found.
            #expect(try await queries.timeline(orderID: "1000000001").detail.order.orderID == "o1")
            await #expect(throws: OperatorError.notFound("no order nope")) {
                try await queries.timeline(orderID: "nope")
            }
        }
    }

    @Test func retryAndCancelByOrderIDNeverTakeItForAJobID() async throws {
        try await Fixture.with { f in
            let job = try await f.enqueue("a", receipt: Receipts.paying("1"))
            // An order whose id is the number of a's job.
            let numbered = try await f.enqueue(String(job), user: "u2", receipt: Receipts.paying("2"))
            try await f.setJob(numbered, state: "failed")
            let queries = OperatorQueries(connection: f.connection, actor: "agent")
            let retried = try await queries.retry(orderID: String(job))
            #expect(retried.orderID == String(job) && retried.jobID != job)
            let cancelled = try await queries.cancel(orderID: String(job))
            #expect(cancelled.jobID == retried.jobID)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [job]) == "pending")
        }
    }

    @Test func overviewCountsSettledOrdersPerTenMinutesAndRetriesByStore() async throws {
        try await Fixture.with { f in
            for (index, outcome) in ["full", "full", "invalid"].enumerated() {
                try await f.enqueue("o\(index)", receipt: Receipts.paying("\(index + 1)"))
                try await f.setOutcome("o\(index)", outcome, secondsAgo: 60)
            }
            try await f.enqueue("old", receipt: Receipts.paying("9"))
            try await f.setOutcome("old", "full", secondsAgo: 2 * 86_400)
            let apple = try await f.enqueue("r1", receipt: Receipts.paying("10"))
            try await f.addAttempt(job: apple, number: 1, result: "retry", errorClass: "http", secondsAgo: 120)
            try await f.addAttempt(job: apple, number: 2, result: "retry", errorClass: "http", secondsAgo: 60)
            let googleText = try await f.value("SELECT iap.enqueue_google_purchase('g1', 'u2', 'coins', 'tok', 1)")
            let google = try #require(googleText.flatMap { Int64($0) })
            try await f.addAttempt(job: google, number: 1, result: "retry", errorClass: "transport", secondsAgo: 30)
            try await f.addAttempt(
                job: google,
                number: 2,
                result: "retry",
                errorClass: "transport",
                secondsAgo: 2 * 86_400
            )

            let series = try await OperatorQueries(connection: f.connection).overviewSeries()
            let settled = Dictionary(grouping: series.settled, by: \.outcome).mapValues {
                $0.reduce(0) { $0 + $1.orders }
            }
            #expect(settled == ["full": 2, "invalid": 1])
            #expect(series.settled.allSatisfy { $0.bucket >= series.since && $0.bucket <= series.now })
            #expect(series.settled.allSatisfy { $0.bucket.hasSuffix("0:00Z") })
            #expect(
                series.retries.map { "\($0.errorClass) \($0.store) \($0.retries) \($0.jobs)" } == [
                    "http apple 2 1", "transport google 1 1",
                ]
            )
        }
    }
}
