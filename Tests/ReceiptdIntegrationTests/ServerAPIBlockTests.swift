import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A `Retry-After` blocks the App Store Server API an hour at most, and a block shows in `iap.stuck_jobs` and
/// `receiptd status`.
@Suite struct ServerAPIBlockTests {
    @Test func aRetryAfterCenturiesAheadBlocksAnHourAtMostAndShows() async throws {
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
            #expect(
                try await f.value("SELECT blocked_until > now() + interval '50 minutes' FROM iap.api_pacing") == "t"
            )
            #expect(try await f.value("SELECT blocked_until <= now() + interval '1 hour' FROM iap.api_pacing") == "t")
            #expect(try await f.value("SELECT run_at <= now() + interval '1 hour' FROM iap.jobs") == "t")

            let row = try await f.row("SELECT job_id, order_id, reason, stuck_seconds, last_error FROM iap.stuck_jobs")
            #expect(row["job_id"] == nil && row["order_id"] == nil && row["reason"] == "api_blocked")
            #expect(
                (row["stuck_seconds"].flatMap(Int.init) ?? 0) > 3000
                    && row["last_error"]?.contains("apple_server_api") == true
            )
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(
                status.blockedAPIs.map(\.api) == ["apple_server_api"]
                    && (status.blockedAPIs.first?.remainingSeconds ?? 0) > 3000
            )
            #expect(status.stuckJobs.map(\.reason) == ["api_blocked"])
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(
                text.status == 0 && text.stdout.contains("API blocked: apple_server_api")
                    && text.stdout.contains("api_blocked"),
                "\(text.stdout)\(text.stderr)"
            )
        }
    }

    @Test func aBlockOfUnderAMinuteIsNotStuckButShows() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("UPDATE iap.api_pacing SET blocked_until = now() + interval '20 seconds'")
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.blockedAPIs.map(\.api) == ["apple_server_api"] && status.stuckTotal == 0)
            try await f.connection.execute("UPDATE iap.api_pacing SET blocked_until = now() + interval '2 minutes'")
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
                "SELECT blocked_until <= now() + interval '1 hour' AND next_slot <= now() + interval '1 hour' AS ok FROM iap.api_pacing"
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
        // Api_blocked, for the hour
        #expect(try await connection.execute("SELECT count(*) AS n FROM iap.stuck_jobs").first?["n"] == "1")
        await connection.close()
    }
}
