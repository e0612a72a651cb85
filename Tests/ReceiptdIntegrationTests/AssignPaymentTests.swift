import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// `receiptd assign` / `iap.assign_payment`: after retention purged the job that found the payment, beside a settle
/// of the same user, and recording the purchase's original transaction id as its first owner.
@Suite struct AssignPaymentTests {
    /// Records every unclaimed payment, however old.
    private func everyPayment(_ f: Fixture) -> ReceiptdSettings {
        f.settings { $0.daemon.unclaimedSince = Date(timeIntervalSince1970: 0) }
    }

    /// u1's order `o1` (gems) gets a receipt holding only `purchase` (a shield): the order is unmatched and the
    /// purchase an unclaimed payment. Returns the job that found it.
    private func unclaimed(_ f: Fixture, _ purchase: SyntheticTransaction) async throws -> Int64 {
        try await f.connection.execute("SELECT iap.create_order('o1', 'u1', 'gems')")
        let job = try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: [purchase]).encoded())
        try await f.withDaemons(settings: everyPayment(f)) { _ in try await f.waitUntilSettled() }
        #expect(try await f.value("SELECT transaction_id FROM iap.unclaimed_payments") == purchase.transactionID)
        return job
    }

    @Test func assignSucceedsAfterRetentionPurgedTheJobThatFoundThePayment() async throws {
        try await Fixture.with { f in
            let finder = try await unclaimed(f, Receipts.purchase("91", product: "shield"))
            try await f.connection.execute(
                "UPDATE iap.jobs SET finished_at = now() - interval '40 days' WHERE id = $1",
                [finder]
            )
            #expect(try await f.value("SELECT iap.purge_finished(interval '30 days', 100)") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE id = $1", [finder]) == "0")
            // The order it was meant for has a job of its own waiting, which the payment completes.
            try await f.connection.execute("SELECT iap.create_order('lost', 'u1', 'shield')")
            let waiting = try await f.enqueue("lost", product: "shield", receipt: SyntheticReceipt(inApp: []).encoded())

            let assigned = try ReceiptdBinary.run([
                "assign", "91", "lost", "--database-url", f.database.connectionString,
            ])
            #expect(
                assigned.status == 0 && assigned.stdout.contains("delivered to order lost: full"),
                "\(assigned.stderr)"
            )
            #expect(
                try await f.value("SELECT order_id || '/' || job_id FROM iap.deliveries WHERE transaction_id = '91'")
                    == "lost/\(finder)"
            )
            let job = try await f.row("SELECT state, superseded_by, last_error FROM iap.jobs WHERE id = $1", [waiting])
            #expect(job["state"] == "superseded" && job["superseded_by"] == nil)
            #expect(job["last_error"]?.contains("payment 91") == true)
            #expect(
                try await f.value("SELECT status::text || '/' || outcome::text FROM iap.orders WHERE order_id = 'lost'")
                    == "verified/full"
            )
        }
    }

    @Test func assignWaitsForASettleOfTheSameUserInsteadOfDeadlocking() async throws {
        try await Fixture.with { f in
            _ = try await unclaimed(f, Receipts.purchase("92", product: "shield"))
            for order in ["a", "b"] {
                try await f.connection.execute("SELECT iap.create_order($1, 'u1', 'shield')", [order])
            }
            // A settle of u1's receipt, which carries the payment, for order a: it locks the user's open orders in
            // order_id order (its own statement), then delivers the payment and marks it claimed, as its write does.
            let settle = try await f.database.connect()
            try await settle.execute("BEGIN")
            let locked = try await settle.execute(PostgresJobQueue.settleReads.orders, [#"["u1"]"#, #"["a"]"#])
            #expect(locked.rows.compactMap { $0[0] } == ["a", "b", "o1"])
            // Meanwhile the operator assigns the payment to order b.
            let assigning = try await f.database.connect()
            let assign = Task { try await OperatorQueries(connection: assigning).assign(transactionID: "92", to: "b") }
            try await f.waitUntil(timeout: .seconds(10)) {
                try await f.value(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%iap.assign_payment%'
                    """
                ) == "1"
            }
            try await settle.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment)
                VALUES ('92', 'a', 'u1', 'shield', 1, 'Production')
                """
            )
            try await settle.execute(
                """
                UPDATE iap.unclaimed_payments SET assigned_order_id = 'a', assigned_at = now()
                WHERE transaction_id = '92' AND assigned_at IS NULL
                """
            )
            try await settle.execute(
                "UPDATE iap.orders SET delivered_quantity = 1, outcome = 'full', status = 'verified' WHERE order_id = 'a'"
            )
            try await settle.execute("COMMIT")
            await settle.close()
            // The settle came first: the payment is delivered already, which assign says with its documented refusal.
            let result = await assign.result
            await assigning.close()
            #expect(throws: OperatorError.refused("assign_payment: payment 92 is already delivered")) {
                try result.get()
            }
            #expect(
                try await f.value("SELECT string_agg(order_id, ',') FROM iap.deliveries WHERE transaction_id = '92'")
                    == "a"
            )
            #expect(try await f.value("SELECT delivered_quantity FROM iap.orders WHERE order_id = 'b'") == "0")
        }
    }

    @Test func assignRecordsThePurchasesOriginalTransactionAsItsFirstOwner() async throws {
        try await Fixture.with { f in
            // A restored or renewed purchase: its original transaction is an earlier one.
            let restored = SyntheticTransaction(
                transactionID: "96",
                originalTransactionID: "95",
                productID: "shield",
                purchaseDateMilliseconds: Receipts.nowMilliseconds
            )
            _ = try await unclaimed(f, restored)
            #expect(
                try await f.value(
                    "SELECT original_transaction_id FROM iap.unclaimed_payments WHERE transaction_id = '96'"
                ) == "95"
            )
            try await f.connection.execute("SELECT iap.create_order('lost', 'u1', 'shield')")
            try await f.connection.execute("SELECT iap.assign_payment('96', 'lost')")
            #expect(
                try await f.value(
                    "SELECT string_agg(original_transaction_id || '/' || user_id || '/' || order_id, ',') FROM iap.transaction_owners"
                )
                    == "95/u1/lost"
            )
        }
    }
}
