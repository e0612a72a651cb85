import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A job whose store is not configured waits, the same for every store: pending, no attempt used however often
/// it comes due, a `last_error` naming the setting to set, and counted by `receiptd status`.
@Suite struct StoreNotConfiguredTests {
    @Test func jobsWaitWithoutUsingAttemptsAndStatusCountsThem() async throws {
        try await Fixture.with { f in
            let byID = try await f.enqueue("by-id", transaction: "2000000123456789")
            let payload = SignedTransactionPayload(transactionId: "3000000000000001", productId: "gems")
            let receipt = try await f.enqueue("receipt", receipt: AppReceiptBuilder(inApp: [payload]).encoded())
            let google = Int64(
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, $5, $6) AS id",
                    ["google", "u1", "gems", "tok", 1, String?.none]
                ).first!.int("id")
            )
            let settings = f.settings {
                $0.storeKit.credentials = nil
                $0.storeKit.receiptVerifier = .serverAPI
            }
            let ids = [byID, receipt, google]
            try await f.withDaemons(settings: settings) { _ in
                // Due again and again: each time the job is put back without an attempt.
                for _ in 1...3 {
                    try await f.connection.execute(
                        "UPDATE iap.jobs SET run_at = now(), last_error = NULL WHERE id = ANY($1::bigint[])",
                        ["{\(ids.map(String.init).joined(separator: ","))}"]
                    )
                    try await f.waitUntil {
                        try await f.value(
                            "SELECT count(*) FROM iap.jobs WHERE id = ANY($1::bigint[]) AND last_error IS NOT NULL",
                            ["{\(ids.map(String.init).joined(separator: ","))}"]
                        ) == "3"
                    }
                }
            }
            for (id, setting) in [
                (byID, "APPLE_PRIVATE_KEY_FILE"), (receipt, "APPLE_PRIVATE_KEY_FILE"),
                (google, "GOOGLE_SERVICE_ACCOUNT_FILE"),
            ] {
                let job = try await f.row(
                    "SELECT state, attempts, last_error, run_at > now() AS later FROM iap.jobs WHERE id = $1",
                    [id]
                )
                #expect(job["state"] == "pending" && job["attempts"] == "0" && job["later"] == "t", "job \(id)")
                #expect(job["last_error"]?.contains(" is not configured: set ") == true, "job \(id)")
                #expect(job["last_error"]?.contains(setting) == true, "job \(id): \(job["last_error"] ?? "")")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.attempts") == "0")
            #expect(try await f.value("SELECT outcome FROM iap.orders WHERE order_id = 'by-id'") == nil)

            let status = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("Waiting for a store to be configured: 3"), "\(status.stdout)")
            let json = try ReceiptdBinary.run(["status", "--json", "--database-url", f.database.connectionString])
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            )
            #expect(document["waiting_for_store_configuration"] as? Int == 3, "\(document.keys.sorted())")
        }
    }
}
