import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct EnqueueReceiptTests {
    @Test func newOrderGetsAPendingJobThatRunsNow() async throws {
        try await Fixture.with { f in
            let id = try await f.enqueue("o1", receipt: Receipts.paying("1"), quantity: 2)
            let job = try await f.row("SELECT state, attempts, run_at <= now() AS due, receipt_sha256 FROM iap.jobs WHERE id = $1", [id])
            #expect(job["state"] == "pending")
            #expect(job["attempts"] == "0")
            #expect(job["due"] == "t")
            #expect(job["receipt_sha256"]?.count == 64)
            let order = try await f.row("SELECT user_id, product_id, quantity, outcome, delivered_quantity FROM iap.orders WHERE order_id = 'o1'")
            #expect(order["user_id"] == "u1" && order["product_id"] == "gems" && order["quantity"] == "2")
            #expect(order["outcome"] == nil && order["delivered_quantity"] == "0")
        }
    }

    @Test func existingOrderKeepsItsQuantityAndCreationTime() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1"), quantity: 2)
            let before = try await f.value("SELECT created_at::text FROM iap.orders WHERE order_id = 'o1'")
            try await f.enqueue("o1", receipt: Receipts.paying("2"), quantity: 5)
            #expect(try await f.value("SELECT quantity FROM iap.orders WHERE order_id = 'o1'") == "2")
            #expect(try await f.value("SELECT created_at::text FROM iap.orders WHERE order_id = 'o1'") == before)
        }
    }

    @Test(arguments: [
        ("empty receipt", "o1", "u1", "gems", "", 1),
        ("blank receipt", "o1", "u1", "gems", "   ", 1),
        ("not base64", "o1", "u1", "gems", "this is not base64!!", 1),
        ("quantity zero", "o1", "u1", "gems", "AAAA", 0),
        ("negative quantity", "o1", "u1", "gems", "AAAA", -3),
        ("another user", "existing", "u2", "gems", "AAAA", 1),
        ("another product", "existing", "u1", "shield", "AAAA", 1),
        ("empty order id", "", "u1", "gems", "AAAA", 1),
    ])
    func badInputRaisesAndStoresNothing(label: String, order: String, user: String, product: String, receipt: String, quantity: Int) async throws {
        try await Fixture.with { f in
            try await f.enqueue("existing", receipt: Receipts.paying("1"))
            let before = try await f.value("SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)")
            await #expect(throws: PostgresError.self, "\(label)") {
                try await f.enqueue(order, user: user, product: product, receipt: receipt, quantity: quantity)
            }
            #expect(try await f.value("SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)") == before)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE order_id = 'existing'") == "pending")
        }
    }

    @Test func receiptOverOneMebibyteIsRefused() async throws {
        try await Fixture.with { f in
            let big = String(repeating: "QUFB", count: (1 << 20) / 4 + 1)
            let tooBig = await #expect(throws: PostgresError.self) { try await f.enqueue("o1", receipt: big) }
            #expect(tooBig?.description.contains("1 MiB") == true)
            let notBase64 = await #expect(throws: PostgresError.self) { try await f.enqueue("o1", receipt: "%%%") }
            #expect(notBase64?.description.contains("base64") == true)
            let orders = try await f.value("SELECT count(*) FROM iap.orders")
            #expect(orders == "0")
        }
    }

    @Test func theDatabaseAllowsOneActiveJobPerOrder() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1"))
            let error = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    "INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256, state) VALUES ($1, $2, $3, $4)",
                    ["o1", "AAAA", "x", "running"])
            }
            #expect(error?.isUniqueViolation == true)
        }
    }

    @Test func migrateIsIdempotentAndSafeConcurrently() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        let connection = try await f.database.connect()
                        try await Migrator.migrate(connection)
                        await connection.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
        }
    }

    @Test func migrateIntoAnEmptyDatabaseUnderConcurrency() async throws {
        let database = try await TestEnvironment.shared.emptyDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let connection = try await database.connect()
                    try await Migrator.migrate(connection)
                    await connection.close()
                }
            }
            try await group.waitForAll()
        }
        let connection = try await database.connect()
        let tables = try await connection.execute(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
            ["iap"]).first?.int("n")
        #expect(tables == 5)
        await connection.close()
    }
}
