import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct RoleTests {
    /// Runs `sql` as another user and returns the SQLSTATE it failed with, or `nil` if it succeeded.
    private func failure(of sql: String, as connectionString: String) async throws -> String? {
        let connection = try await PostgresConnection.connect(connectionString)
        var sqlState: String?
        do {
            try await connection.execute(sql)
        } catch let error as PostgresError {
            sqlState = error.sqlState ?? "none"
        }
        await connection.close()
        return sqlState
    }

    private let permissionDenied = "42501"

    @Test func theAppMayOnlyEnqueue() async throws {
        try await Fixture.with { f in
            let app = try await f.loginRole(in: "receiptd_app")
            let connection = try await PostgresConnection.connect(app)
            let enqueued = try await connection.execute(
                "SELECT iap.enqueue_receipt($1, $2, $3, $4) AS id",
                ["o1", "u1", "gems", Receipts.paying("1")]
            )
            let transaction = try await connection.execute(
                "SELECT iap.enqueue_transaction($1, $2, $3, $4) AS id",
                ["o2", "u1", "gems", "42"]
            )
            // The game declares its catalogue, and may not write it directly.
            try await connection.execute("SELECT iap.define_product('apple', 'gems', 'consumable')")
            await connection.close()
            #expect(try await f.value("SELECT kind FROM iap.products WHERE product_id = 'gems'") == "consumable")
            #expect(
                try await failure(of: "UPDATE iap.products SET kind = 'non_consumable'", as: app) == permissionDenied
            )
            #expect(try #require(transaction.first).int("id") > 0)
            let id = try #require(enqueued.first).int("id")
            #expect(try await f.value("SELECT order_id FROM iap.jobs WHERE id = $1", [id]) == "o1")

            #expect(try await failure(of: "SELECT * FROM iap.orders", as: app) == permissionDenied)
            #expect(try await failure(of: "SELECT * FROM iap.queue_summary", as: app) == permissionDenied)
            #expect(try await failure(of: "UPDATE iap.jobs SET state = 'cancelled'", as: app) == permissionDenied)
            #expect(try await failure(of: "SELECT iap.retry_order('o1')", as: app) == permissionDenied)
            #expect(try await failure(of: "SELECT iap.cancel_order('o1')", as: app) == permissionDenied)
            #expect(
                try await failure(
                    of: "SELECT iap.enqueue_job('f', 'receipt', 'o9', 'u1', 'gems', 'QUFB', 1, NULL, NULL)",
                    as: app
                )
                    == permissionDenied
            )
            #expect(
                try await failure(of: "UPDATE iap.api_pacing SET blocked_until = 'infinity'", as: app)
                    == permissionDenied
            )
        }
    }

    @Test func theOperatorReadsRetriesAndCancelsButWritesNothingDirectly() async throws {
        try await Fixture.with { f in
            let failed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(failed, state: "failed")
            let operatorURL = try await f.loginRole(in: "receiptd_operator")

            #expect(try await failure(of: "UPDATE iap.jobs SET state = 'pending'", as: operatorURL) == permissionDenied)
            #expect(try await failure(of: "DELETE FROM iap.attempts", as: operatorURL) == permissionDenied)
            #expect(
                try await failure(
                    of: "INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ('x', 'u', 'p')",
                    as: operatorURL
                ) == permissionDenied
            )
            #expect(
                try await failure(of: "SELECT iap.purge_finished(interval '1 day', 10)", as: operatorURL)
                    == permissionDenied
            )
            #expect(
                try await failure(of: "SELECT iap.enqueue_receipt('o2', 'u1', 'gems', 'QUFB')", as: operatorURL)
                    == permissionDenied
            )
            for view in [
                "queue_summary", "recent_retries", "stuck_jobs", "recent_failures", "orders", "jobs", "attempts",
                "deliveries",
            ] {
                #expect(try await failure(of: "SELECT * FROM iap.\(view)", as: operatorURL) == nil, "\(view)")
            }

            let connection = try await PostgresConnection.connect(operatorURL)
            let queries = OperatorQueries(connection: connection)
            let retried = try await queries.retry("o1")
            let cancelled = try await queries.cancel("o1")
            let status = try await queries.status()
            let detail = try await queries.show(orderID: "o1")
            await connection.close()
            #expect(cancelled.jobID == retried.jobID && status.jobs(in: .cancelled) == 1 && detail.jobs.count == 2)
            #expect(
                try await f.value("SELECT last_error FROM iap.jobs WHERE id = $1", [retried.jobID])
                    == "cancelled by \(f.database.name)_operator"
            )
        }
    }

    @Test func theWorkerRunsTheDaemonButCannotChangeTheSchema() async throws {
        try await Fixture.with { f in
            let worker = try await f.loginRole(in: "receiptd_worker")
            for statement in [
                "DROP TABLE iap.deliveries", "TRUNCATE iap.jobs", "CREATE TABLE iap.scratch (id int)",
                "DELETE FROM iap.deliveries", "DELETE FROM iap.jobs", "ALTER TABLE iap.orders ADD COLUMN x int",
                "SELECT iap.retry_order('o1')", "SELECT iap.enqueue_receipt('o2', 'u1', 'gems', 'QUFB')",
            ] {
                let state = try await failure(of: statement, as: worker)
                // Dropping or altering someone else's table is refused as "must be owner" (also 42501).
                #expect(state == permissionDenied, "\(statement)")
            }
            #expect(try await failure(of: "SELECT iap.purge_finished(interval '1 day', 10)", as: worker) == nil)

            try await f.enqueue("o1", receipt: Receipts.paying("1000000001"))
            // A transaction id too: the Server API's shared pacing is the worker's to write.
            let token = UUID()
            f.standIn.register(
                SignedTransactionPayload(
                    transactionId: "2000000001",
                    productId: "gems",
                    appAccountToken: token.uuidString.lowercased()
                )
            )
            try await f.enqueue("o2", user: "u2", transaction: "2000000001", appAccountToken: token)
            try await f.withDaemons(settings: f.settings { $0.databaseURL = worker }) { _ in
                try await f.waitUntilSettled()
            }
            #expect(try await f.order("o2")["outcome"] == "full")
            let order = try await f.order("o1")
            #expect(order["outcome"] == "full" && order["state"] == "succeeded")
            #expect(
                try await f.value("SELECT job_id FROM iap.deliveries WHERE transaction_id = '1000000001'")
                    == order["id"]
            )
        }
    }

    @Test func aRoleInNoGroupCannotCallTheFunctionsThatRunAsTheirOwner() async throws {
        try await Fixture.with { f in
            let nobody = try await f.loginRole(in: nil)
            for call in [
                "SELECT iap.enqueue_receipt('o1', 'u1', 'gems', 'QUFB')", "SELECT iap.retry_order('o1')",
                "SELECT iap.cancel_order('o1')", "SELECT iap.purge_finished(interval '1 day', 10)",
            ] {
                #expect(try await failure(of: call, as: nobody) == permissionDenied, "\(call)")
            }
        }
    }

    @Test func theOperatorReadsTheAuditTrailAndRecordsInItOnlyThroughTheFunction() async throws {
        try await Fixture.with { f in
            let operatorURL = try await f.loginRole(in: "receiptd_operator")
            let app = try await f.loginRole(in: "receiptd_app")
            let worker = try await f.loginRole(in: "receiptd_worker")
            let record = "SELECT iap.record_operator_action('retry', 'o1', 'job 1', 'o1')"

            #expect(try await failure(of: "SELECT * FROM iap.operator_actions", as: operatorURL) == nil)
            #expect(try await failure(of: record, as: operatorURL) == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.operator_actions") == "1")
            // Written once, never rewritten: not even the operator changes or removes a row directly.
            for statement in [
                "INSERT INTO iap.operator_actions (actor, action, target, result) VALUES ('x', 'retry', 'o1', 'ok')",
                "UPDATE iap.operator_actions SET actor = 'someone else'", "DELETE FROM iap.operator_actions",
            ] {
                #expect(try await failure(of: statement, as: operatorURL) == permissionDenied, "\(statement)")
            }
            for role in [app, worker] {
                #expect(try await failure(of: "SELECT * FROM iap.operator_actions", as: role) == permissionDenied)
                #expect(try await failure(of: record, as: role) == permissionDenied)
            }
            #expect(
                try await f.value("SELECT count(*) || ':' || min(actor) FROM iap.operator_actions")
                    == "1:\(f.database.name)_operator"
            )
        }
    }
}
