import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 47: subscriptionsv2 answering 404 or 410 for the token of a subscription still entitled is retried every
/// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL` and shown failing, so a renewal no notification told of is found once
/// Google answers again.
extension GoogleSubscriptionTests {
    @Test(arguments: [404, 410])
    func aReadGoogleRefusesIsRetriedAtTheIntervalShownAndFindsTheRenewalOnceGoogleAnswers(status: Int) async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let base = "GPA.9700-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9700", orderID: base)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await periods(f, "google:" + base).count == 1 }
                try await f.waitUntilSettled()
            }
            // Google renews without a notification, and answers the re-read `status`.
            try await google.changeSubscription(.renew, token)
            google.failPurchaseLookups(status: status)
            try await f.connection.execute("UPDATE iap.subscriptions SET read_due_at = now()")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(15)) {
                    try await f.value(
                        "SELECT read_failing_since IS NOT NULL AND read_leased_until IS NULL FROM iap.subscriptions"
                    ) == "t"
                }
            }
            let row = try await f.row(
                """
                SELECT read_due_at BETWEEN now() + interval '23 hours' AND now() + interval '1 day' AS in_a_day,
                       read_error
                FROM iap.subscriptions
                """
            )
            #expect(row["in_a_day"] == "t" && row["read_error"]?.contains("HTTP \(status)") == true, "\(row)")
            let stuck = try await f.row("SELECT reason, order_id, last_error FROM iap.stuck_jobs")
            #expect(stuck["reason"] == "subscription_read_failing" && stuck["order_id"] == "g-9700", "\(stuck)")
            #expect(stuck["last_error"]?.hasPrefix("google:\(base): ") == true, "\(stuck)")
            #expect(try await OperatorQueries(connection: f.connection).status().subscriptions.failingReads == 1)
            #expect(google.recordedPurchaseQueries().filter { $0.httpStatus == status }.count == 1)

            // A day later Google answers: the renewal is its own order, and nothing is failing any more.
            google.failPurchaseLookups(status: nil)
            try await f.connection.execute("UPDATE iap.subscriptions SET read_due_at = now()")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(20)) { try await periods(f, "google:" + base).count == 2 }
                try await f.waitUntilSettled()
            }
            #expect(
                try await periods(f, "google:" + base) == [["g-9700", base], ["renewal:\(base)..0", "\(base)..0"]]
            )
            #expect(try await f.value("SELECT read_failing_since FROM iap.subscriptions") == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }
}
