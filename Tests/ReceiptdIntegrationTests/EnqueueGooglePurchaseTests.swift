import Foundation
import ReceiptdCore
import Testing

/// `iap.enqueue_google_purchase`: what it stores, what it refuses (22023, nothing stored), and a daemon without
/// Google Play settings, which leaves the job waiting with a clear error.
@Suite struct EnqueueGooglePurchaseTests {
    private func enqueue(
        _ f: Fixture,
        _ order: String,
        user: String = "u1",
        product: String = "gems",
        token: String,
        quantity: Int = 1,
        account: String? = nil
    ) async throws -> Int64 {
        let result = try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, $5, $6) AS id",
            [order, user, product, token, quantity, account]
        )
        return Int64(try result.first!.int("id"))
    }

    @Test func aTokenIsStoredAsAGoogleJobAndTheAccountOnTheOrder() async throws {
        try await Fixture.with { f in
            let id = try await enqueue(f, "g1", token: "opaque-token.AO-J1Oy_abc", account: "acct-7")
            let job = try await f.row("SELECT kind, state, receipt_data FROM iap.jobs WHERE id = $1", [id])
            #expect(
                job["kind"] == "google_purchase" && job["state"] == "pending"
                    && job["receipt_data"] == "opaque-token.AO-J1Oy_abc"
            )
            #expect(try await f.value("SELECT account_id FROM iap.orders WHERE order_id = 'g1'") == "acct-7")
            let named = try await f.value(
                """
                SELECT iap.enqueue_google_purchase(order_id => 'g2', user_id => 'u1', product_id => 'gems', purchase_token => 'tok',
                                                   quantity => 2, account_id => 'acct-8')
                """
            )
            #expect(named != nil)
            // The newest input wins across stores' functions, as for Apple's.
            let replaced = try await f.enqueue("g1", receipt: Receipts.paying("1"))
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [id]) == "superseded")
            #expect(replaced != id)
        }
    }

    @Test(arguments: [
        ("empty", ""),
        ("over 4 KiB", String(repeating: "t", count: 4097)),
        ("white space", "tok en"),
        ("a slash", "tok/en"),
        ("a control character", "tok\u{1b}en"),
    ])
    func badTokensAreRefused(label: String, token: String) async throws {
        try await Fixture.with { f in
            await #expect("\(label)") { _ = try await enqueue(f, "g1", token: token) } throws: {
                ($0 as? PostgresError)?.sqlState == "22023"
            }
            let stored = try await f.value(
                "SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs)"
            )
            #expect(stored == "0/0")
        }
    }

    @Test func anotherAccountOrABadAccountIdIsRefused() async throws {
        try await Fixture.with { f in
            _ = try await enqueue(f, "g1", token: "a", account: "acct-1")
            for (label, account) in [
                ("another account", "acct-2"), ("a long account id", String(repeating: "a", count: 256)),
                ("a control character", "ac\nct"),
            ] {
                await #expect("\(label)") { _ = try await enqueue(f, "g1", token: "b", account: account) } throws: {
                    ($0 as? PostgresError)?.sqlState == "22023"
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
            // A token of exactly 4 KiB is accepted.
            _ = try await enqueue(f, "g2", token: String(repeating: "t", count: 4096))
        }
    }

    @Test func withoutGooglePlaySettingsTheJobWaitsWithAClearError() async throws {
        try await Fixture.with { f in
            let id = try await enqueue(f, "g1", token: "tok")
            try await f.withDaemons { _ in
                try await f.waitUntil {
                    try await f.value("SELECT last_error FROM iap.jobs WHERE id = $1", [id]) != nil
                }
            }
            let job = try await f.row(
                "SELECT state, attempts, last_error, run_at > now() AS later FROM iap.jobs WHERE id = $1",
                [id]
            )
            #expect(job["state"] == "pending" && job["attempts"] == "0" && job["later"] == "t")
            #expect(
                job["last_error"]?.contains("Google Play is not configured: set GOOGLE_SERVICE_ACCOUNT_FILE") == true
            )
        }
    }
}
