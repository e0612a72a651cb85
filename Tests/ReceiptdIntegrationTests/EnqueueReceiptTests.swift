import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

@Suite struct EnqueueReceiptTests {
    @Test func newOrderGetsAPendingJobThatRunsNow() async throws {
        try await Fixture.with { f in
            let id = try await f.enqueue("o1", receipt: Receipts.paying("1"), quantity: 2)
            let job = try await f.row(
                "SELECT state, attempts, run_at <= now() AS due, receipt_sha256 FROM iap.jobs WHERE id = $1",
                [id]
            )
            #expect(job["state"] == "pending")
            #expect(job["attempts"] == "0")
            #expect(job["due"] == "t")
            #expect(job["receipt_sha256"]?.count == 64)
            let order = try await f.row(
                "SELECT user_id, product_id, quantity, outcome, delivered_quantity FROM iap.orders WHERE order_id = 'o1'"
            )
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
        ("another product", "existing", "u1", "shield", "AAAA", 1),
        ("empty order id", "", "u1", "gems", "AAAA", 1),
        ("newline receipt", "o1", "u1", "gems", "\n", 1),
        ("white space receipt", "o1", "u1", "gems", "\t\r\n ", 1),
        ("long order id", String(repeating: "o", count: 256), "u1", "gems", "AAAA", 1),
        ("long user id", "o1", String(repeating: "u", count: 256), "gems", "AAAA", 1),
        ("long product id", "o1", "u1", String(repeating: "p", count: 256), "AAAA", 1),
        ("escape in order id", "o\u{1b}[31m1", "u1", "gems", "AAAA", 1),
        ("carriage return in user id", "o1", "u\r1", "gems", "AAAA", 1),
        ("line feed in product id", "o1", "u1", "ge\nms", "AAAA", 1),
        ("C1 control in order id", "o\u{85}1", "u1", "gems", "AAAA", 1),
        ("DEL in user id", "o1", "u\u{7f}", "gems", "AAAA", 1),
    ])
    func badInputRaisesAndStoresNothing(
        label: String,
        order: String,
        user: String,
        product: String,
        receipt: String,
        quantity: Int
    ) async throws {
        try await Fixture.with { f in
            try await f.enqueue("existing", receipt: Receipts.paying("1"))
            let before = try await f.value(
                "SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)"
            )
            await #expect(throws: PostgresError.self, "\(label)") {
                try await f.enqueue(order, user: user, product: product, receipt: receipt, quantity: quantity)
            }
            #expect(
                try await f.value("SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)")
                    == before
            )
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE order_id = 'existing'") == "pending")
        }
    }

    @Test func idsUpTo255CharactersOfAnyScriptAreAccepted() async throws {
        try await Fixture.with { f in
            let id = String(repeating: "ü", count: 255)
            try await f.enqueue(id, user: "игрок-1", product: "com.example.宝石", receipt: Receipts.paying("1"))
            #expect(try await f.value("SELECT char_length(order_id) FROM iap.orders") == "255")
            let error = await #expect(throws: PostgresError.self) {
                try await f.enqueue("o\u{1b}", receipt: Receipts.paying("2"))
            }
            #expect(error?.sqlState == "22023")
            #expect(error?.description.contains("control character") == true)
        }
    }

    @Test func aFullOrderReturnsTheSameJobIdAfterRetentionRemovedItsJobs() async throws {
        try await Fixture.with { f in
            // o2's receipt also pays o1 (a merged payment) while o1's own request is slow: o1 becomes full through o2's job.
            try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: [], delayMilliseconds: 3_000).encoded())
            let merged = SyntheticReceipt(inApp: [Receipts.purchase("91", product: "shield"), Receipts.purchase("92")])
                .encoded()
            try await f.enqueue("o2", product: "shield", receipt: merged)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("o1")["outcome"] == "full")
            let payer = try await f.value("SELECT job_id FROM iap.deliveries WHERE transaction_id = '92'")
            // The receipt that filled o1, sent for it: nothing to verify again.
            let before = try await f.value("SELECT iap.enqueue_receipt('o1', 'u1', 'gems', $1)", [merged])
            #expect(before == payer)
            try await f.connection.execute("UPDATE iap.jobs SET finished_at = now() - interval '40 days'")
            _ = try await f.value("SELECT iap.purge_finished(interval '30 days', 1000)")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE order_id = 'o1'") == "0")
            let after = try await f.value("SELECT iap.enqueue_receipt('o1', 'u1', 'gems', $1)", [merged])
            #expect(after != nil && after == before)
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'pending'") == "0")
            // Another receipt may carry a second payment: it is verified.
            let other = try await f.value("SELECT iap.enqueue_receipt('o1', 'u1', 'gems', $1)", [Receipts.paying("93")])
            #expect(other != nil && other != before)
            #expect(
                try await f.value("SELECT state || '/' || order_id FROM iap.jobs WHERE id = $1::bigint", [other])
                    == "pending/o1"
            )
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
                    ["o1", "AAAA", "x", "running"]
                )
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
            ["iap"]
        ).first?.int("n")
        #expect(tables == 29)  // through migration 22 (iap.subscriptions, iap.subscription_history)
        await connection.close()
    }
}
