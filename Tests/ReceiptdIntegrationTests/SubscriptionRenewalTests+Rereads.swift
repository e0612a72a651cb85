import FakeAppStore
import Testing

/// Issue 48: App Store news that leaves nothing open asks no store call. A renewal storm would otherwise spend Get
/// All Subscription Statuses' whole quota learning what the notifications said; a re-read is for what the news leaves
/// open, such as a period missing before the news's own.
extension SubscriptionRenewalTests {
    /// Waits until the subscription's news was processed and no re-read of it is due or under way.
    func waitUntilNoReadIsDue(_ f: Fixture, _ original: String) async throws {
        try await f.waitUntil {
            try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
        }
        try await f.waitUntilSettled()
        try await f.waitUntil {
            try await f.value(
                "SELECT read_due_at > now() AND read_leased_until IS NULL FROM iap.subscriptions WHERE subscription_id = $1",
                ["apple:" + original]
            ) == "t"
        }
    }

    @Test func aRenewalThatFollowsTheLedgersPeriodIsDeliveredWithNoStoreCall() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "9100")
                let renewal = try #require(try await f.standIn.changeSubscription(.renew, "9100", notify: url))
                try await waitForPeriods(f, "9100", 2)
                try await waitUntilNoReadIsDue(f, "9100")
                let row = try await f.row(
                    """
                    SELECT latest_transaction_id, state,
                           (extract(epoch FROM entitled_until) * 1000)::bigint = $2 AS entitled_to_its_end,
                           read_due_at = entitled_until AS read_when_it_ends
                    FROM iap.subscriptions WHERE subscription_id = $1
                    """,
                    ["apple:9100", renewal.expiresDate ?? 0]
                )
                #expect(row["latest_transaction_id"] == "9100001" && row["state"] == "active", "\(row)")
                #expect(row["entitled_to_its_end"] == "t" && row["read_when_it_ends"] == "t", "\(row)")
            }
            #expect(try await f.value("SELECT result FROM iap.store_notifications") == "period_enqueued")
            #expect(
                try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'renewal:9100001'") == "full"
            )
            let calls = f.standIn.recordedServerAPIRequests()
            #expect(calls.isEmpty, "\(calls.map { ($0.endpoint, $0.transactionID) })")
        }
    }

    @Test func aRenewalSkippingAPeriodAsksOneReReadThatDeliversTheMissingOne() async throws {
        try await Fixture.with { f in
            try await f.withDaemonsAndIntake(.apple, settings: f.settings()) { url in
                try await subscribe(f, "9200")
                // Apple renews twice; only the second DID_RENEW arrives.
                try await f.standIn.changeSubscription(.renew, "9200", notify: url, deliver: false)
                try await f.standIn.changeSubscription(.renew, "9200", notify: url)
                try await waitForPeriods(f, "9200", 3)
                try await waitUntilNoReadIsDue(f, "9200")
            }
            let orders = try await f.connection.execute(
                "SELECT order_id FROM iap.deliveries WHERE subscription_id = 'apple:9200' ORDER BY period_start"
            ).namedRows.map { $0["order_id"] }
            #expect(orders == ["o-9200", "renewal:9200001", "renewal:9200002"])
            let calls = f.standIn.recordedServerAPIRequests()
            #expect(
                calls.filter { $0.endpoint == .subscriptionStatuses }.map(\.transactionID) == ["9200"],
                "\(calls.map { ($0.endpoint, $0.transactionID) })"
            )
            #expect(try await f.value("SELECT latest_transaction_id FROM iap.subscriptions") == "9200002")
        }
    }
}
