import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// The catch-up from Get Notification History, against the stand-in's history: a notification the intake never
/// received is recorded from it (source `history`), one already pushed is not recorded twice, the cursor advances
/// with an hour's overlap and stays within what Apple keeps, records failing verification are skipped, pages are
/// followed, a failed page leaves the cursor, and one daemon polls at a time.
@Suite struct NotificationHistoryTests {
    private static let day: Int64 = 86_400_000
    private static let hour: Int64 = 3_600_000

    private static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Has the stand-in sign a REFUND for `transactionID` that was never delivered: it is only in its history.
    @discardableResult
    private func missed(
        _ f: Fixture,
        _ transactionID: String,
        environment: String = "Production",
        bundleID: String = SyntheticReceipt.defaultBundleID
    ) async throws -> NotificationSendResult {
        let sent = try await f.standIn.sendNotification(
            ServerAPINotificationOrder(
                notificationType: "REFUND",
                transaction: SignedTransactionPayload(
                    transactionId: transactionID,
                    bundleId: bundleID,
                    productId: "gems",
                    environment: environment,
                    revocationDate: Self.now,
                    revocationReason: 0
                ),
                bundleId: bundleID,
                deliver: false
            )
        )
        // A window ends at the poller's "now", exclusive, and the stand-in signs at the nearest millisecond: a poll
        // in the same millisecond leaves the notification for the next window, which starts an hour earlier. The
        // tests poll once more and expect it now, so let the clock pass its signedDate first.
        try await Task.sleep(for: .milliseconds(2))
        return sent
    }

    /// Runs a daemon whose catch-up polls once at start (the interval is an hour), waits for that poll, and hands
    /// over its poller.
    private func withPoller(
        _ f: Fixture,
        settings adjust: (inout ReceiptdSettings) -> Void = { _ in },
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        _ body: (NotificationHistoryPoller) async throws -> Void
    ) async throws {
        let settings = f.settings {
            $0.storeKit.notificationHistoryInterval = .seconds(3600)
            adjust(&$0)
        }
        let environments = settings.daemon.sandbox == .accept ? "2" : "1"
        try await f.withDaemons(
            settings: settings,
            logger: logger,
            notificationVerifier: UncheckedNotificationDecoder.verifier()
        ) { daemons in
            try await f.waitUntil {
                try await f.value("SELECT count(*) FROM iap.notification_history_cursor WHERE polled_at IS NOT NULL")
                    == environments
            }
            // The cursors are written under the catch-up's advisory lock: wait until the first poll let it go.
            try await f.waitUntil {
                try await f.value(
                    """
                    SELECT count(*) FROM pg_locks
                    WHERE locktype = 'advisory' AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 1
                    """,
                    [
                        String(PostgresJobQueue.notificationHistoryLockKey >> 32),
                        String(PostgresJobQueue.notificationHistoryLockKey & 0xFFFF_FFFF),
                    ]
                ) == "0"
            }
            try await body(try #require(daemons[0].companions.compactMap { $0 as? NotificationHistoryPoller }.first))
        }
    }

    private func cursor(_ f: Fixture, _ environment: String = "Production") async throws -> Int64 {
        try #require(
            try await f.value(
                "SELECT end_ms FROM iap.notification_history_cursor WHERE environment = $1",
                [environment]
            )
            .flatMap(Int64.init)
        )
    }

    @Test func aNotificationOnlyInTheHistoryIsRecordedFromIt() async throws {
        try await Fixture.with { f in
            let production = try await missed(f, "9601")
            let sandbox = try await missed(f, "9602", environment: "Sandbox")
            #expect(!production.delivered && production.httpStatus == nil)
            let before = Self.now
            try await withPoller(f) { _ in }
            let row = try await f.row(
                """
                SELECT notification_type, transaction_id, environment, source, signed_at IS NOT NULL AS signed,
                       payload->'transaction'->>'transactionId' AS paid, payload->'notification'->>'notificationUUID' AS id
                FROM iap.store_notifications WHERE notification_id = $1
                """,
                [production.notificationUUID]
            )
            #expect(row["notification_type"] == "REFUND" && row["transaction_id"] == "9601")
            #expect(row["environment"] == "Production" && row["source"] == "history" && row["signed"] == "t")
            #expect(row["paid"] == "9601" && row["id"] == production.notificationUUID)
            #expect(
                try await f.value(
                    "SELECT source || ' ' || environment FROM iap.store_notifications WHERE notification_id = $1",
                    [sandbox.notificationUUID]
                ) == "history Sandbox"
            )
            // The first run looks back one day, in both environments, and the cursors end where the window did.
            let queries = f.standIn.recordedNotificationHistoryQueries()
            #expect(Set(queries.map(\.environment)) == [.production, .sandbox])
            for query in queries {
                #expect(query.httpStatus == 200 && query.bearerFailure == nil && query.paginationToken == nil)
                let start = try #require(query.startDate)
                let end = try #require(query.endDate)
                #expect(end >= before && end - start == Self.day)
            }
            #expect(try await cursor(f) >= before)
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.notification_history_cursor WHERE succeeded_at IS NOT NULL AND last_error IS NULL"
                ) == "2"
            )
        }
    }

    @Test func theDaemonsOwnVerifierChecksTheHistoryAndTheRefundFoundThereIsProcessed() async throws {
        try await Fixture.with { f in
            let refund = try await missed(f, "9690")
            let foreign = try await missed(f, "9691", bundleID: "com.example.other")
            let settings = f.settings { $0.storeKit.notificationHistoryInterval = .seconds(3600) }
            // No test verifier: the daemon checks each record as the intake checks a push.
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value(
                        "SELECT processed_at IS NOT NULL FROM iap.store_notifications WHERE notification_id = $1",
                        [refund.notificationUUID]
                    ) == "t"
                }
            }
            let row = try await f.row(
                "SELECT source, result FROM iap.store_notifications WHERE notification_id = $1",
                [refund.notificationUUID]
            )
            #expect(row["source"] == "history" && row["result"] == "revoked_undelivered")
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.store_notifications WHERE notification_id = $1",
                    [foreign.notificationUUID]
                ) == "0"
            )
        }
    }

    @Test func aNotificationAlreadyPushedIsNotRecordedTwice() async throws {
        try await Fixture.with { f in
            let sent = try await missed(f, "9701")
            // The intake had it.
            try await f.connection.execute(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, source, payload)
                VALUES ('apple', $1, 'REFUND', '9701', 'push', '{}')
                """,
                [sent.notificationUUID]
            )
            try await withPoller(f) { poller in
                let recorded = try await poller.pollOnce()
                #expect(recorded == 0)
            }
            let row = try await f.row(
                "SELECT count(*) AS n, min(source) AS source FROM iap.store_notifications WHERE notification_id = $1",
                [sent.notificationUUID]
            )
            #expect(row["n"] == "1" && row["source"] == "push")
        }
    }

    @Test func theCursorAdvancesAndEachWindowOverlapsTheLastByAnHour() async throws {
        try await Fixture.with { f in
            try await withPoller(f) { poller in
                let first = try await cursor(f)
                let later = try await missed(f, "9801")
                #expect(try await poller.pollOnce() == 1)
                let asked = try #require(
                    f.standIn.recordedNotificationHistoryQueries().last { $0.environment == .production }
                )
                #expect(asked.startDate == first - Self.hour)
                #expect(try #require(asked.endDate) >= first)
                #expect(try await cursor(f) == asked.endDate)
                #expect(
                    try await f.value(
                        "SELECT source FROM iap.store_notifications WHERE notification_id = $1",
                        [later.notificationUUID]
                    ) == "history"
                )
            }
        }
    }

    @Test func theWindowNeverStartsEarlierThanAppleKeepsHistory() async throws {
        try await Fixture.with { f in
            try await withPoller(f) { poller in
                // Months without a successful catch-up.
                try await f.connection.execute(
                    """
                    UPDATE iap.notification_history_cursor
                    SET end_ms = CASE environment WHEN 'Production' THEN $1::bigint ELSE $2::bigint END
                    """,
                    [Self.now - 200 * Self.day, Self.now - 40 * Self.day]
                )
                let before = Self.now
                #expect(try await poller.pollOnce() == 0)
                let queries = f.standIn.recordedNotificationHistoryQueries().suffix(2)
                for (environment, days) in [(RecordedRequest.Environment.production, Int64(179)), (.sandbox, 29)] {
                    let asked = try #require(queries.first { $0.environment == environment })
                    // The stand-in, as Apple, refuses a start further back than it keeps: these were answered.
                    #expect(asked.httpStatus == 200)
                    let start = try #require(asked.startDate)
                    #expect(start >= before - days * Self.day && start <= Self.now - days * Self.day)
                }
            }
        }
    }

    @Test func theSandboxIsNotAskedWhenSandboxPurchasesAreRejected() async throws {
        try await Fixture.with { f in
            try await missed(f, "9851", environment: "Sandbox")
            try await withPoller(f, settings: { $0.daemon.sandbox = .reject }) { poller in
                let recorded = try await poller.pollOnce()
                #expect(recorded == 0)
            }
            #expect(f.standIn.recordedNotificationHistoryQueries().allSatisfy { $0.environment == .production })
            #expect(
                try await f.value("SELECT string_agg(environment, ',') FROM iap.notification_history_cursor")
                    == "Production"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.store_notifications") == "0")
        }
    }

    @Test func aRecordThatFailsVerificationIsSkippedAndTheRestRecorded() async throws {
        try await Fixture.with { f in
            let forged = try await missed(f, "9901", bundleID: "com.example.other")
            let good = try await missed(f, "9902")
            let lines = CapturingLogHandler.Lines()
            try await withPoller(f, logger: CapturingLogHandler.logger(into: lines)) { _ in }
            #expect(
                try await f.value(
                    "SELECT string_agg(notification_id, ',') FROM iap.store_notifications"
                ) == good.notificationUUID
            )
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.store_notifications WHERE notification_id = $1",
                    [forged.notificationUUID]
                ) == "0"
            )
            #expect(lines.all.contains { $0.contains("failed verification") })
            #expect(
                try await f.value("SELECT count(*) FROM iap.notification_history_cursor WHERE last_error IS NULL")
                    == "2"
            )
        }
    }

    @Test func everyPageIsRecorded() async throws {
        try await Fixture.with { f in
            var ids: Set<String> = []
            for index in 0..<25 { ids.insert(try await missed(f, "99\(50 + index)").notificationUUID) }
            try await withPoller(f) { _ in }
            let recorded = try await f.connection.execute(
                "SELECT notification_id FROM iap.store_notifications WHERE source = 'history'"
            ).rows.compactMap { $0.first ?? nil }
            #expect(Set(recorded) == ids)
            let pages = f.standIn.recordedNotificationHistoryQueries().filter { $0.environment == .production }
            #expect(pages.count == 2 && pages[0].paginationToken == nil && pages[1].paginationToken != nil)
            #expect(pages[0].startDate == pages[1].startDate && pages[0].endDate == pages[1].endDate)
        }
    }

    @Test func aFailedPageLeavesTheCursorWhereItWas() async throws {
        try await Fixture.with { f in
            try await withPoller(f, settings: { $0.daemon.sandbox = .reject }) { poller in
                let before = try await cursor(f)
                let sent = try await missed(f, "9990")
                // The next call fails: the window's only page.
                f.standIn.scriptNotificationHistory([ScriptStep(http: 500)])
                await #expect(throws: (any Error).self) { _ = try await poller.pollOnce() }
                #expect(try await cursor(f) == before)
                let row = try await f.row(
                    "SELECT failed_at IS NOT NULL AS failed, last_error FROM iap.notification_history_cursor"
                )
                #expect(row["failed"] == "t" && row["last_error"]?.contains("HTTP 500") == true)
                #expect(try await poller.pollOnce() == 1)
                #expect(try await cursor(f) > before)
                #expect(try await f.value("SELECT last_error FROM iap.notification_history_cursor") == nil)
                #expect(
                    try await f.value(
                        "SELECT count(*) FROM iap.store_notifications WHERE notification_id = $1",
                        [sent.notificationUUID]
                    )
                        == "1"
                )
            }
        }
    }

    @Test func oneDaemonPollsAtATime() async throws {
        try await Fixture.with { f in
            try await withPoller(f) { poller in
                try await f.connection.execute(
                    "SELECT pg_advisory_lock($1)",
                    [PostgresJobQueue.notificationHistoryLockKey]
                )
                let asked = f.standIn.recordedNotificationHistoryQueries().count
                try await missed(f, "9995")
                #expect(try await poller.pollOnce() == nil)
                #expect(f.standIn.recordedNotificationHistoryQueries().count == asked)
                #expect(try await f.value("SELECT count(*) FROM iap.store_notifications") == "0")
                try await f.connection.execute(
                    "SELECT pg_advisory_unlock($1)",
                    [PostgresJobQueue.notificationHistoryLockKey]
                )
                #expect(try await poller.pollOnce() == 1)
            }
        }
    }
}
