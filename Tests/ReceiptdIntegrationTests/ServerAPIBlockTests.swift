import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A `Retry-After` blocks the App Store Server API endpoint that sent it, an hour at most, and the block shows in
/// `iap.stuck_jobs` and `receiptd status` under the endpoint's name.
@Suite struct ServerAPIBlockTests {
    @Test func aRetryAfterCenturiesAheadBlocksItsEndpointAnHourAtMostAndShows() async throws {
        try await Fixture.with { f in
            // Apple's Retry-After is a time in milliseconds: this one is 900 years ahead.
            let centuries = Int64((Date().timeIntervalSince1970 + 900 * 365 * 86_400) * 1000)
            f.standIn.register(
                SignedTransactionPayload(transactionId: "9901", productId: "gems", environment: "Production"),
                script: [ScriptStep(retryAfter: String(centuries), errorCode: 4_290_000)]
            )
            try await f.enqueue("parked", transaction: "9901")
            try await f.withDaemons { _ in
                try await f.waitUntil { try await f.value("SELECT count(*) FROM iap.attempts") == "1" }
            }
            // Get Transaction Info answered the 429: it alone is blocked.
            #expect(
                try await f.value("SELECT string_agg(api, ',') FROM iap.api_pacing WHERE blocked_until > now()")
                    == "apple_transaction_info"
            )
            #expect(
                try await f.value(
                    "SELECT blocked_until > now() + interval '50 minutes' FROM iap.api_pacing WHERE api = 'apple_transaction_info'"
                ) == "t"
            )
            #expect(
                try await f.value(
                    "SELECT blocked_until <= now() + interval '1 hour' FROM iap.api_pacing WHERE api = 'apple_transaction_info'"
                ) == "t"
            )
            #expect(try await f.value("SELECT run_at <= now() + interval '1 hour' FROM iap.jobs") == "t")

            let row = try await f.row("SELECT job_id, order_id, reason, stuck_seconds, last_error FROM iap.stuck_jobs")
            #expect(row["job_id"] == nil && row["order_id"] == nil && row["reason"] == "api_blocked")
            #expect(
                (row["stuck_seconds"].flatMap(Int.init) ?? 0) > 3000
                    && row["last_error"]?.hasPrefix("apple_transaction_info asked not to be called before") == true
            )
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(
                status.blockedAPIs.map(\.api) == ["apple_transaction_info"]
                    && (status.blockedAPIs.first?.remainingSeconds ?? 0) > 3000
            )
            #expect(status.stuckJobs.map(\.reason) == ["api_blocked"])
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(
                text.status == 0 && text.stdout.contains("API blocked: apple_transaction_info asked not to be called")
                    && text.stdout.contains("api_blocked"),
                "\(text.stdout)\(text.stderr)"
            )
        }
    }

    @Test func aBlockOfUnderAMinuteIsNotStuckButShows() async throws {
        try await Fixture.with { f in
            try await f.connection.execute(
                "UPDATE iap.api_pacing SET blocked_until = now() + interval '20 seconds' WHERE api = 'apple_consumption'"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.blockedAPIs.map(\.api) == ["apple_consumption"] && status.stuckTotal == 0)
            try await f.connection.execute(
                "UPDATE iap.api_pacing SET blocked_until = now() + interval '2 minutes' WHERE api = 'apple_consumption'"
            )
            #expect(try await f.value("SELECT reason FROM iap.stuck_jobs") == "api_blocked")
        }
    }

    /// A database that stored an unbounded Retry-After before this version is brought back to the hour by `migrate`;
    /// the voided poll's record keeps its last poll as its last success.
    @Test func migratingCapsABlockStoredBeforeAndKeepsThePollRecord() async throws {
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: 7)  // the version before operations_health
        try await connection.execute("UPDATE iap.api_pacing SET blocked_until = '2926-01-01', next_slot = '2926-01-01'")
        try await connection.execute(
            "INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ('parked', 'u1', 'gems'), ('later', 'u2', 'gems')"
        )
        try await connection.execute(
            """
            INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256, kind, run_at)
            VALUES ('parked', '9901', 'x', 'transaction', '2926-01-01'), ('later', '9902', 'y', 'transaction', now() + interval '1 hour')
            """
        )
        try await connection.execute(
            """
            INSERT INTO iap.google_voided_cursor (package_name, start_time_ms, polled_at) VALUES ('com.example.game', 1, now() - interval '5 minutes')
            """
        )
        try await Migrator.migrate(connection)
        #expect(
            try await connection.execute(
                "SELECT bool_and(blocked_until <= now() + interval '1 hour' AND next_slot <= now() + interval '1 hour') AS ok FROM iap.api_pacing"
            ).first?["ok"] == "t"
        )
        #expect(
            try await connection.execute("SELECT count(*) AS n FROM iap.jobs WHERE run_at <= now() + interval '1 hour'")
                .first?["n"] == "2"
        )
        let poll = try #require(
            try await connection.execute(
                "SELECT succeeded_at = polled_at AS kept, lock_taken_at = polled_at AS taken, start_time_ms FROM iap.google_voided_cursor"
            ).first
        )
        #expect(poll["kept"] == "t" && poll["taken"] == "t" && poll["start_time_ms"] == "1")
        // Api_blocked, for the hour, on every endpoint: migration 30 cannot tell which one sent the Retry-After.
        #expect(
            try await connection.execute("SELECT count(*) AS n FROM iap.stuck_jobs WHERE reason = 'api_blocked'")
                .first?["n"] == String(AppStoreServerEndpoint.allCases.count)
        )
        await connection.close()
    }
}
