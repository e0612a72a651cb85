import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The lookup of Google notifications that need Google's answer first: put off while Google fails, processed as
/// `failed` when Google does not know the token, waiting without attempts while Google Play is not configured,
/// and leased so that a daemon that dies mid-lookup loses nothing and applies nothing twice.
@Suite struct GoogleNotificationLookupTests {
    /// The daemon's queue on its own pool, for playing a daemon that dies.
    private func withQueue(_ f: Fixture, _ body: (PostgresJobQueue) async throws -> Void) async throws {
        let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "test:1:dead",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
        )
        do {
            try await body(queue)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    @Test func aTransientFailureIsPutOffAndAskedAgain() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.800").encoded()
            google.failPurchaseLookups(status: 503)
            try await f.withDaemons(settings: settings) { _ in
                let id = try await f.recordGoogleOneTime(1, token: token)
                try await f.waitUntil {
                    try await f.value(
                        """
                        SELECT count(*) FROM iap.store_notifications
                        WHERE id = $1 AND attempts >= 2 AND awaiting_lookup AND processed_at IS NULL
                          AND error LIKE 'Google Play: HTTP 503%'
                        """,
                        [id]
                    ) == "1"
                }
                google.failPurchaseLookups(status: nil)
                try await f.expectProcessed(id, "charge_unclaimed")
            }
        }
    }

    @Test func aTokenGoogleDoesNotKnowIsProcessedAsFailed() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            let token = SyntheticPurchaseToken(productID: "gems", script: [ScriptStep(http: 404)]).encoded()
            try await f.withDaemons(settings: settings) { _ in
                let id = try await f.recordGoogleOneTime(1, token: token)
                let processed = try await f.processedResult(id)
                #expect(processed[0] == "failed")
                #expect(processed[1]?.hasPrefix("Google Play: HTTP 404") == true)
                #expect(
                    try await f.value("SELECT awaiting_lookup FROM iap.store_notifications WHERE id = $1", [id]) == "f"
                )
            }
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    @Test func withoutGooglePlayALookupWaitsAMinuteBurningNoAttempts() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                let id = try await f.recordGoogleOneTime(1, token: "tok.en-1")
                try await f.waitUntil {
                    try await f.value(
                        """
                        SELECT count(*) FROM iap.store_notifications
                        WHERE id = $1 AND attempts = 0 AND run_at > now() + interval '50 seconds' AND processed_at IS NULL
                          AND error = 'Google Play is not configured: set GOOGLE_SERVICE_ACCOUNT_FILE'
                        """,
                        [id]
                    ) == "1"
                }
            }
        }
    }

    @Test func aDaemonThatDiesMidLookupLosesNothingAndAppliesNothingTwice() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.create_order('o1', 'alice', 'gems', 1, NULL, 'acct-1')")
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.900", accountID: "acct-1").encoded()
            let id = try await f.recordGoogleOneTime(1, token: token)
            try await withQueue(f) { dead in
                // A daemon claimed the lookup for five seconds and was killed before it wrote Google's answer.
                let claimed = try await dead.claimLookups(limit: 10, lease: .seconds(5))
                #expect(claimed.map(\.id) == [id])
                try await f.withDaemons(settings: settings) { _ in
                    try await Task.sleep(for: .milliseconds(500))
                    // Leased: the living daemon leaves it alone until the lease ends.
                    #expect(google.recordedPurchaseQueries().isEmpty)
                    try await f.expectProcessed(id, "charge_enqueued")
                    try await f.waitUntilSettled()
                    // The dead claim's late answer changes nothing.
                    #expect(
                        try await dead.storeLookup(try #require(claimed.first), key: "purchase", answer: "{}") == false
                    )
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
            #expect(try await f.value("SELECT attempts FROM iap.store_notifications WHERE id = $1", [id]) == "3")
        }
    }
}
