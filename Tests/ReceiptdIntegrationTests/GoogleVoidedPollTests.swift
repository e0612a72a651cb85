import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// The voided-purchases poll keeps within the 30 days Google lists, moves on when nothing was voided, says so
/// when Google answers 400, and shows in `iap.stuck_jobs` and `receiptd status` once it has not succeeded for a day.
@Suite struct GoogleVoidedPollTests {
    private static let day: Int64 = 86_400_000

    /// Runs a daemon that polls once at start (the interval is an hour), waits for that poll, and hands over its poller.
    private func withPoller(
        _ f: Fixture,
        _ settings: ReceiptdSettings,
        _ body: (GoogleVoidedPoller) async throws -> Void
    ) async throws {
        var hourly = settings
        hourly.googlePlay.voidedInterval = .seconds(3600)
        try await f.withDaemons(settings: hourly) { daemons in
            try await f.waitUntil {
                try await f.value("SELECT count(*) FROM iap.google_voided_cursor WHERE polled_at IS NOT NULL") == "1"
            }
            try await body(try #require(daemons[0].companions.compactMap { $0 as? GoogleVoidedPoller }.first))
        }
    }

    private func cursor(_ f: Fixture) async throws -> Int64 {
        try #require(try await f.value("SELECT start_time_ms FROM iap.google_voided_cursor").flatMap(Int64.init))
    }

    @Test func aCursorOlderThanThirtyDaysStillPollsAndRecordsRefunds() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.700")
            try await f.enqueue("late-refund", googleToken: token)
            try await withPoller(f, settings) { poller in
                try await f.waitUntilSettled()
                // 31 days went by without a refund, and without a poll moving the cursor: the old poll asked Google
                // for those 31 days and was refused with 400 from then on.
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await f.connection.execute(
                    "UPDATE iap.google_voided_cursor SET start_time_ms = $1",
                    [now - 31 * Self.day]
                )
                google.void(token: token.encoded(), orderID: "GPA.700", reason: 7)
                #expect(try await poller.pollOnce() == 1)
            }
            #expect(try await f.value("SELECT revocation_reason FROM iap.deliveries") == "chargeback")
            let asked = try #require(google.recordedVoidedQueries().last)
            #expect(asked.httpStatus == 200)
            #expect(try #require(asked.startTime) >= Int64(Date().timeIntervalSince1970 * 1000) - 30 * Self.day)
        }
    }

    @Test func whenNothingIsVoidedTheCursorMovesToThePollsEnd() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await withPoller(f, settings) { poller in
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await f.connection.execute(
                    "UPDATE iap.google_voided_cursor SET start_time_ms = $1",
                    [now - 20 * Self.day]
                )
                #expect(try await poller.pollOnce() == 0)
                #expect(try await cursor(f) >= now)
                #expect(google.recordedVoidedQueries().last?.startTime == now - 20 * Self.day)
            }
        }
    }

    @Test func aRefusedPollIsLoggedAsHTTP400() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.voidedInterval = .milliseconds(100) }) {
            f,
            google,
            settings in
            google.failVoidedQueries(1000, status: 400)
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { lines.all.contains { $0.hasPrefix("error ") && $0.contains("HTTP 400") } }
            }
            let line = try #require(lines.all.first { $0.contains("HTTP 400") })
            #expect(line.contains("refused the request as invalid") && line.contains("bad request"), "\(line)")
            #expect(try await f.value("SELECT last_error FROM iap.google_voided_cursor")?.contains("HTTP 400") == true)
        }
    }

    @Test func aPollFailingForADayIsAStuckJobAndInTheStatus() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await withPoller(f, settings) { poller in
                #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
                google.failVoidedQueries(1000, status: 403)
                await #expect(throws: (any Error).self) { _ = try await poller.pollOnce() }
                // Failing for an hour is not yet stuck; for a day it is.
                #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
                try await f.connection.execute(
                    """
                    UPDATE iap.google_voided_cursor SET succeeded_at = now() - interval '25 hours', created_at = now() - interval '40 days'
                    """
                )
                await #expect(throws: (any Error).self) { _ = try await poller.pollOnce() }
            }
            let row = try await f.row("SELECT job_id, order_id, reason, stuck_seconds, last_error FROM iap.stuck_jobs")
            #expect(row["job_id"] == nil && row["order_id"] == nil && row["reason"] == "voided_poll_failing")
            #expect(
                (row["stuck_seconds"].flatMap(Int.init) ?? 0) >= 25 * 3600
                    && row["last_error"]?.contains("HTTP 403") == true
            )

            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(
                status.stuckTotal == 1 && status.stuckJobs.first?.jobID == nil
                    && status.stuckJobs.first?.reason == "voided_poll_failing"
            )
            #expect(status.voidedPolls.first?.lastError?.contains("HTTP 403") == true)
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(
                text.status == 0 && text.stdout.contains("voided_poll_failing") && text.stdout.contains("HTTP 403"),
                "\(text.stdout)\(text.stderr)"
            )

            // Google answers again: the next poll clears it.
            google.failVoidedQueries(0)
            try await withPoller(f, settings) { poller in _ = try await poller.pollOnce() }
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }
}
