import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// `iap.enqueue_transaction`: what it accepts, what it refuses (22023, nothing stored), and the account token.
@Suite struct EnqueueTransactionTests {
    private static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl"

    @Test func anIdOrACompactJWSIsStoredAsATransactionJob() async throws {
        try await Fixture.with { f in
            let byID = try await f.enqueue("o1", transaction: "2000000123456789")
            let byJWS = try await f.enqueue("o2", transaction: Self.jws, quantity: 2)
            for id in [byID, byJWS] {
                let job = try await f.row("SELECT kind, state, receipt_sha256 FROM iap.jobs WHERE id = $1", [id])
                #expect(job["kind"] == "transaction" && job["state"] == "pending" && job["receipt_sha256"]?.count == 64)
            }
            #expect(try await f.value("SELECT quantity FROM iap.orders WHERE order_id = 'o2'") == "2")
            // Named notation with the contract's parameter names.
            let named = try await f.value(
                """
                SELECT iap.enqueue_transaction(order_id => 'o3', user_id => 'u1', product_id => 'gems', transaction => '42',
                                               app_account_token => '6f2c3c3e-1d2b-4d2c-9a53-3f4b1e0a5d11')
                """
            )
            #expect(named != nil)
            #expect(
                try await f.value("SELECT app_account_token FROM iap.orders WHERE order_id = 'o3'")
                    == "6f2c3c3e-1d2b-4d2c-9a53-3f4b1e0a5d11"
            )
            #expect(try await f.value("SELECT kind FROM iap.jobs WHERE order_id = 'o3'") == "transaction")
        }
    }

    @Test(arguments: [
        ("empty", ""),
        ("letters", "abc"),
        ("digits and letters", "12a"),
        ("two parts", "eyJh.eyJ0"),
        ("four parts", "a.b.c.d"),
        ("an empty part", "a..c"),
        ("padding", "a.b.c=="),
        ("white space", " 123"),
        ("a negative id", "-5"),
        ("an id of 33 digits", String(repeating: "9", count: 33)),
        ("over 64 KiB", "a.b." + String(repeating: "c", count: 65_536)),
        ("a receipt", Receipts.paying("1")),
    ])
    func badTransactionsAreRefused(label: String, transaction: String) async throws {
        try await Fixture.with { f in
            try await f.enqueue("existing", transaction: "1")
            let before = try await f.value(
                "SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)"
            )
            await #expect("\(label)") {
                try await f.enqueue("o1", transaction: transaction)
            } throws: { error in
                (error as? PostgresError)?.sqlState == "22023"
            }
            #expect(
                try await f.value("SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)")
                    == before
            )
        }
    }

    @Test func theOrderRulesAreThoseOfReceipts() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", transaction: "1", appAccountToken: UUID())
            let refusals: [(String, () async throws -> Void)] = [
                ("another product", { try await f.enqueue("o1", product: "shield", transaction: "2") }),
                ("another account token", { try await f.enqueue("o1", transaction: "2", appAccountToken: UUID()) }),
                ("a long order id", { try await f.enqueue(String(repeating: "o", count: 256), transaction: "2") }),
                ("a control character", { try await f.enqueue("o\u{1b}2", transaction: "2") }),
                ("quantity zero", { try await f.enqueue("o2", transaction: "2", quantity: 0) }),
            ]
            for (label, call) in refusals {
                await #expect("\(label)") { try await call() } throws: { ($0 as? PostgresError)?.sqlState == "22023" }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
            // An order created at checkout takes its token with its first transaction; the same token again is fine.
            _ = try await f.value("SELECT iap.create_order('o4', 'u1', 'gems')")
            let token = UUID()
            try await f.enqueue("o4", transaction: "4", appAccountToken: token)
            try await f.enqueue("o4", transaction: "5", appAccountToken: token)
            #expect(
                try await f.value("SELECT app_account_token FROM iap.orders WHERE order_id = 'o4'")
                    == token.uuidString.lowercased()
            )
        }
    }
}
