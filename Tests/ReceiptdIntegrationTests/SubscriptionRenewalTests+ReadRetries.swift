import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// Issue 47: a re-read Apple refuses for good (Get All Subscription Statuses' 404 4040010) is retried every
/// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL` and shown failing, so a renewal whose notification never came is
/// found once Apple answers again; after the entitlement ended over 60 days ago it stops.
extension SubscriptionRenewalTests {
    /// Time passes: the retry comes due.
    func retryIsDue(_ f: Fixture) async throws {
        try await f.connection.execute("UPDATE iap.subscriptions SET read_due_at = now()")
    }

    /// Waits until a daemon read the subscription, Apple refused, and its next read is a day away (the default
    /// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`).
    func waitForRefusal(_ f: Fixture, calls: Int) async throws {
        try await f.waitUntil(timeout: .seconds(15)) {
            let asked = f.standIn.recordedServerAPIRequests().filter { $0.endpoint == .subscriptionStatuses }.count
            let released = try await f.value(
                "SELECT read_leased_until IS NULL AND read_error IS NOT NULL FROM iap.subscriptions"
            )
            return asked == calls && released == "t"
        }
    }

    /// Samples the daemons' gauges once and returns `receiptd_subscription_reads_failing`.
    func failingGauge(_ f: Fixture) async throws -> Double? {
        let registry = PrometheusCollectorRegistry()
        let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
        var sampled: Double? = nil
        try await f.withDaemons(metrics: metrics) { _ in
            // The reader samples the gauges as it starts.
            try await f.waitUntil(timeout: .seconds(10)) {
                var bytes: [UInt8] = []
                registry.emit(into: &bytes)
                sampled = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
                    .first { $0.hasPrefix("receiptd_subscription_reads_failing ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
                return sampled != nil
            }
        }
        return sampled
    }

    @Test func aReadAppleRefusesIsRetriedAtTheIntervalShownAndFindsTheLostRenewalOnceAppleAnswers() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await subscribe(f, "7600") }
            // Apple renews; its DID_RENEW never comes, and Get All Subscription Statuses answers 404 4040010 twice.
            try await f.standIn.changeSubscription(.renew, "7600")
            f.standIn.scriptSubscriptionStatuses([ScriptStep(errorCode: 4_040_010), ScriptStep(errorCode: 4_040_010)])
            try await retryIsDue(f)
            try await f.withDaemons { _ in try await waitForRefusal(f, calls: 1) }
            let failing = try await f.row(
                """
                SELECT read_failing_since IS NOT NULL AS failing,
                       read_due_at BETWEEN now() + interval '23 hours' AND now() + interval '1 day' AS in_a_day
                FROM iap.subscriptions
                """
            )
            #expect(failing["failing"] == "t" && failing["in_a_day"] == "t", "\(failing)")
            let since = try await f.value("SELECT read_failing_since::text FROM iap.subscriptions")
            let stuck = try await f.row("SELECT reason, order_id, job_id, last_error FROM iap.stuck_jobs")
            #expect(stuck["reason"] == "subscription_read_failing" && stuck["order_id"] == "o-7600", "\(stuck)")
            #expect(stuck["job_id"] == nil && stuck["last_error"]?.hasPrefix("apple:7600: ") == true, "\(stuck)")
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.subscriptions.failingReads == 1)
            #expect(status.stuckJobs.map(\.reason) == ["subscription_read_failing"])
            // The gauge, sampled by daemons that read nothing meanwhile: the retry is a day away.
            #expect(try await failingGauge(f) == 1)
            #expect(f.standIn.recordedServerAPIRequests().filter { $0.endpoint == .subscriptionStatuses }.count == 1)

            // A day later Apple still refuses: still failing since the first refusal, and read again a day later.
            try await retryIsDue(f)
            try await f.withDaemons { _ in try await waitForRefusal(f, calls: 2) }
            #expect(try await f.value("SELECT read_failing_since::text FROM iap.subscriptions") == since)
            #expect(
                try await f.value(
                    "SELECT read_due_at BETWEEN now() + interval '23 hours' AND now() + interval '1 day' FROM iap.subscriptions"
                ) == "t"
            )

            // Another day later Apple answers: the lost renewal is its own order, and nothing is failing any more.
            try await retryIsDue(f)
            try await f.withDaemons { _ in
                try await waitForPeriods(f, "7600", 2)
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT user_id FROM iap.orders WHERE order_id = 'renewal:7600001'") == "vera")
            let row = try await f.row(
                "SELECT latest_transaction_id, read_failing_since, read_error FROM iap.subscriptions"
            )
            #expect(row["latest_transaction_id"] == "7600001" && row["read_failing_since"] == nil, "\(row)")
            #expect(row["read_error"] == nil, "\(row)")
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            #expect(try await OperatorQueries(connection: f.connection).status().subscriptions.failingReads == 0)
        }
    }

    @Test func aReadAppleRefusesIsNoLongerRetriedOnceTheEntitlementEndedOverSixtyDaysAgo() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await subscribe(f, "7700") }
            f.standIn.scriptSubscriptionStatuses([ScriptStep(errorCode: 4_040_010), ScriptStep(errorCode: 4_040_010)])
            try await retryIsDue(f)
            try await f.withDaemons { _ in try await waitForRefusal(f, calls: 1) }
            #expect(try await f.value("SELECT read_failing_since IS NOT NULL FROM iap.subscriptions") == "t")
            // Its entitlement ended 61 days ago (the store forgets a subscription by then), and Apple refuses again.
            try await f.connection.execute(
                """
                UPDATE iap.subscriptions
                SET entitled_until = now() - interval '61 days', expires_at = now() - interval '61 days'
                """
            )
            try await retryIsDue(f)
            try await f.withDaemons { _ in try await waitForRefusal(f, calls: 2) }
            let row = try await f.row(
                "SELECT read_due_at, read_failing_since, read_error IS NOT NULL AS kept FROM iap.subscriptions"
            )
            #expect(row["read_due_at"] == nil && row["read_failing_since"] == nil && row["kept"] == "t", "\(row)")
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            #expect(try await OperatorQueries(connection: f.connection).status().subscriptions.failingReads == 0)
        }
    }

    @Test func aNotificationEndsTheFailing() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "7800")
                f.standIn.scriptSubscriptionStatuses([ScriptStep(errorCode: 4_040_010)])
                try await retryIsDue(f)
                try await waitForRefusal(f, calls: 1)
                #expect(try await f.value("SELECT read_failing_since IS NOT NULL FROM iap.subscriptions") == "t")
                // Apple's news comes: the subscription follows it again, failing no more.
                try await f.standIn.changeSubscription(.renew, "7800", notify: url)
                try await waitForPeriods(f, "7800", 2)
                try await f.waitUntil {
                    try await f.value("SELECT read_failing_since IS NULL FROM iap.subscriptions") == "t"
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }
}
