import Foundation
import ReceiptdCore
import Testing

/// The operators' audit trail, `iap.operator_actions`: every operator function records one row with who acted
/// (the transaction's `receiptd.actor`, else the database login), the login it came through, what, on what, and
/// the result; `OperatorQueries` and the CLI name their actor; a refusal is recorded and changes nothing else.
@Suite struct OperatorAuditTests {
    /// The trail, oldest first, one `actor|action|target|result|session_user|order_id` line a row.
    static func trail(_ f: Fixture) async throws -> [String] {
        try await f.connection.execute(
            """
            SELECT a.actor || '|' || a.action || '|' || a.target || '|' || a.result || '|' || a.session_user || '|'
                   || coalesce(a.order_id, '-') AS line
            FROM iap.operator_actions a ORDER BY a.id
            """
        ).namedRows.map { try $0.string("line") }
    }

    /// An order `order` of u1 whose only job failed: retry may give it a new one.
    private func failedOrder(_ f: Fixture, _ order: String, receipt: String) async throws -> Int64 {
        let job = try await f.enqueue(order, receipt: Receipts.paying(receipt))
        try await f.setJob(job, state: "failed")
        try await f.setOutcome(order, "failed")
        return job
    }

    /// A payment nobody ordered (a shield of u1's) and u1's order `lost` for a shield, with nothing delivered.
    private func strayPayment(_ f: Fixture, transaction: String = "t-stray") async throws {
        try await f.connection.execute("SELECT iap.create_order('lost', 'u1', 'shield')")
        try await f.connection.execute(
            """
            INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, environment,
                                                user_id, order_id, store)
            VALUES ($1, 'shield', 1, now() - interval '1 hour', 'Production', 'u1', 'o1', 'apple')
            """,
            [transaction]
        )
    }

    @Test func everyOperatorFunctionRecordsOneRowWithTheTransactionsActorElseTheLogin() async throws {
        try await Fixture.with { f in
            _ = try await failedOrder(f, "o1", receipt: "1")
            try await strayPayment(f)
            let first = try await f.writeWebhookEvent(order: "o1")
            let second = try await f.writeWebhookEvent(order: nil, type: "payment.unclaimed")
            let operatorURL = try await f.loginRole(in: "receiptd_operator")
            let login = "\(f.database.name)_operator"
            let operations = try await PostgresConnection.connect(operatorURL)

            // set_config(…, true) is SET LOCAL: the actor of this transaction only.
            let retried = try await operations.withSession { session in
                try session.transaction { session in
                    try session.execute("SELECT set_config('receiptd.actor', 'alice', true)")
                    return try session.execute("SELECT iap.retry_order('o1') AS id").first?.string("id")
                }
            }
            try await operations.withSession { session in
                try session.executeScript(
                    "BEGIN; SET LOCAL receiptd.actor = 'bob'; SELECT iap.cancel_order('o1'); COMMIT"
                )
            }
            let cancelled = try await f.value("SELECT id FROM iap.jobs WHERE order_id = 'o1' AND state = 'cancelled'")
            // No actor now: the setting is gone with its transaction, and the database login acts.
            #expect(try await operations.execute("SELECT iap.cancel_order('o1') AS n").first?.int("n") == 0)
            try await operations.withSession { session in
                try session.transaction { session in
                    try session.execute("SELECT set_config('receiptd.actor', 'carol', true)")
                    try session.execute("SELECT iap.assign_payment('t-stray', 'lost')")
                }
            }
            try await operations.execute("SELECT iap.set_trust('u9', 'apple', true, 'dave')")
            let replayed = try await operations.execute(
                "SELECT iap.replay_webhook_events(ARRAY[$1, $2, 'msg_unknown']) AS id",
                [first, second]
            ).rows.compactMap { $0[0] }
            #expect(Set(replayed) == [first, second])
            try await operations.execute("SELECT iap.enable_webhooks('erin')")

            await operations.close()
            let trail = try await Self.trail(f)
            try #require(trail.count == 8)
            #expect(
                Array(trail.prefix(6)) == [
                    "alice|retry|o1|job \(retried ?? "?")|\(login)|o1",
                    "bob|cancel|o1|cancelled job \(cancelled ?? "?")|\(login)|o1",
                    "\(login)|cancel|o1|refused: no pending or running job|\(login)|o1",
                    "carol|assign|t-stray|order lost full|\(login)|lost",
                    "\(login)|set_trust|u9 apple|trusted|\(login)|-",
                    // One row per event found, in no given order between the two; none for the unknown id.
                    trail[5],
                ]
            )
            #expect(
                Set(trail[5...6]) == [
                    "\(login)|replay_webhook|\(first)|pending, due now|\(login)|o1",
                    "\(login)|replay_webhook|\(second)|pending, due now|\(login)|-",
                ]
            )
            #expect(trail[7] == "\(login)|enable_webhooks|webhook endpoint|enabled, 2 pending|\(login)|-")
            // When: the transaction's time, never in the future, in the order the rows were written.
            #expect(
                try await f.value(
                    """
                    SELECT (bool_and(at <= now() AND at > now() - interval '5 minutes')
                            AND array_agg(at ORDER BY id) = array_agg(at ORDER BY at, id))::text
                    FROM iap.operator_actions
                    """
                ) == "true"
            )
        }
    }

    @Test func operatorQueriesRecordTheirActorAndTheDatabaseLogin() async throws {
        try await Fixture.with { f in
            _ = try await failedOrder(f, "o1", receipt: "1")
            try await strayPayment(f)
            let event = try await f.writeWebhookEvent(order: "o1")
            let login = "\(f.database.name)_operator"
            let operations = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_operator"))
            let alice = OperatorQueries(connection: operations, actor: "alice")

            let retried = try await alice.retry("o1")
            let cancelled = try await alice.cancel("o1")
            let assigned = try await alice.assign(transactionID: "t-stray", to: "lost")
            _ = try await alice.setTrust(of: "u2", store: .google, to: .untrusted, actor: "alice")
            _ = try await alice.replayWebhookEvents([event])
            _ = try await alice.enableWebhooks(actor: "alice")
            // Without an actor, the login acts.
            _ = try await OperatorQueries(connection: operations).setTrust(
                of: "u2",
                store: .google,
                to: .trusted,
                actor: ""
            )

            await operations.close()
            #expect(assigned.outcome == "full")
            #expect(
                try await Self.trail(f) == [
                    "alice|retry|o1|job \(retried.jobID)|\(login)|o1",
                    "alice|cancel|o1|cancelled job \(cancelled.jobID)|\(login)|o1",
                    "alice|assign|t-stray|order lost full|\(login)|lost",
                    "alice|set_trust|u2 google|untrusted|\(login)|-",
                    "alice|replay_webhook|\(event)|pending, due now|\(login)|o1",
                    "alice|enable_webhooks|webhook endpoint|enabled, 1 pending|\(login)|-",
                    "\(login)|set_trust|u2 google|trusted|\(login)|-",
                ]
            )
        }
    }

    @Test func aRefusalIsRecordedWithItsMessageAndChangesNothingElse() async throws {
        try await Fixture.with { f in
            // A full order with its delivery, a payment for another order of the same product, an idle order.
            let paid = try await f.enqueue("paid", product: "shield", receipt: Receipts.paying("2"))
            try await f.setJob(paid, state: "succeeded")
            try await f.connection.execute(
                """
                UPDATE iap.orders SET outcome = 'full', status = 'verified', delivered_quantity = 1, outcome_at = now()
                WHERE order_id = 'paid'
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store)
                VALUES ('t-paid', 'paid', 'u1', 'shield', 1, 'Production', 'apple')
                """
            )
            try await strayPayment(f)
            try await f.connection.execute("SELECT iap.create_order('idle', 'u1', 'gems')")
            let login = "\(f.database.name)_operator"
            let operations = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_operator"))
            let alice = OperatorQueries(connection: operations, actor: "alice")
            let state = """
                SELECT (SELECT string_agg(order_id || ':' || status || ':' || coalesce(outcome::text, '-') || ':'
                                          || delivered_quantity, ',' ORDER BY order_id) FROM iap.orders)
                       || ' / ' || (SELECT string_agg(id || ':' || state, ',' ORDER BY id) FROM iap.jobs)
                       || ' / ' || (SELECT string_agg(transaction_id || ':' || order_id, ',' ORDER BY transaction_id)
                                    FROM iap.deliveries)
                       || ' / ' || (SELECT string_agg(transaction_id || ':' || coalesce(assigned_order_id, '-'), ',')
                                    FROM iap.unclaimed_payments)
                       || ' / ' || (SELECT count(*) FROM iap.transaction_owners)
                """
            let before = try await f.value(state)

            await #expect(throws: OperatorError.refused("assign_payment: order paid is already full")) {
                try await alice.assign(transactionID: "t-stray", to: "paid")
            }
            await #expect(throws: OperatorError.refused("retry_order: order paid is already full")) {
                try await alice.retry("paid")
            }
            await #expect(throws: OperatorError.notFound("assign_payment: no order nope")) {
                try await alice.assign(transactionID: "t-stray", to: "nope")
            }
            await #expect(throws: OperatorError.refused("order idle has no pending or running job to cancel")) {
                try await alice.cancel("idle")
            }

            await operations.close()
            #expect(try await f.value(state) == before)
            #expect(
                try await Self.trail(f) == [
                    "alice|assign|t-stray|refused: assign_payment: order paid is already full|\(login)|paid",
                    "alice|retry|paid|refused: retry_order: order paid is already full|\(login)|paid",
                    "alice|assign|t-stray|not found: assign_payment: no order nope|\(login)|nope",
                    // Recorded once, by cancel_order itself.
                    "alice|cancel|idle|refused: no pending or running job|\(login)|idle",
                ]
            )
        }
    }

    @Test func theCommandLineRecordsTheOperatingSystemUser() async throws {
        try await Fixture.with { f in
            _ = try await failedOrder(f, "o1", receipt: "1")
            let operatorURL = try await f.loginRole(in: "receiptd_operator")
            let login = "\(f.database.name)_operator"
            let user = ProcessInfo.processInfo.userName
            #expect(!user.isEmpty)

            let retried = try ReceiptdBinary.run(["retry", "o1", "--database-url", operatorURL])
            #expect(retried.status == 0, "\(retried.stderr)")
            let job = try #require(try await f.value("SELECT max(id) FROM iap.jobs WHERE order_id = 'o1'"))
            let refused = try ReceiptdBinary.run(["retry", "o1", "--database-url", operatorURL])
            #expect(refused.status == 4, "\(refused.stderr)")

            let trail = try await Self.trail(f)
            #expect(trail.first == "\(user)|retry|o1|job \(job)|\(login)|o1")
            #expect(trail.count == 2)
            #expect(trail.last?.hasPrefix("\(user)|retry|o1|refused: retry_order: order o1 ") == true)
            #expect(trail.last?.hasSuffix("|\(login)|o1") == true)
        }
    }
}
