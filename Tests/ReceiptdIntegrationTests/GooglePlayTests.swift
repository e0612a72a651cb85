import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// Google Play purchases against the stand-in: the outcome rules, the lookup's errors, the access token,
/// acknowledgements made once and durably, and voided purchases recorded.
@Suite struct GooglePlayTests {
    /// A Google Play stand-in beside the fixture, and settings that point a daemon at it.
    private static func withGooglePlay(
        _ adjust: @escaping (inout ReceiptdSettings) -> Void = { _ in },
        _ body: (Fixture, GooglePlayStandIn, ReceiptdSettings) async throws -> Void
    ) async throws {
        try await Fixture.withGooglePlayStandIn(
            settings: {
                $0.googlePlay.voidedInterval = .milliseconds(200)
                adjust(&$0)
            },
            body
        )
    }

    private func enqueue(
        _ f: Fixture,
        _ order: String,
        user: String = "u1",
        product: String = "gems",
        token: SyntheticPurchaseToken,
        quantity: Int = 1,
        account: String? = nil
    ) async throws {
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, $5, $6)",
            [order, user, product, token.encoded(), quantity, account]
        )
    }

    @Test func aPurchaseSettlesAndIsAcknowledgedOnce() async throws {
        try await Self.withGooglePlay { f, google, settings in
            try await enqueue(
                f,
                "g1",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.3345-1234-5678-90123", quantity: 2),
                quantity: 2
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NOT NULL") == "1"
                }
            }
            let order = try await f.order("g1")
            #expect(order["outcome"] == "full" && order["delivered_quantity"] == "2")
            let ledger = try await f.row("SELECT transaction_id, store, environment FROM iap.deliveries")
            #expect(
                ledger["transaction_id"] == "GPA.3345-1234-5678-90123" && ledger["store"] == "google"
                    && ledger["environment"] == "Production"
            )
            let calls = google.recordedFinalizations()
            #expect(calls.count == 1 && calls.first?.action == .acknowledge && calls.first?.httpStatus == 200)
        }
    }

    @Test func aPendingPurchaseWaitsWithoutUsingAttemptsThenSettles() async throws {
        try await Self.withGooglePlay { f, google, settings in
            try await enqueue(
                f,
                "cash",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.0000-0000-0000-00001", pendingCalls: 1)
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT last_error FROM iap.jobs WHERE order_id = 'cash'")?.contains(
                        "pending at Google"
                    ) == true
                }
                let waiting = try await f.order("cash")
                #expect(waiting["state"] == "pending" && waiting["attempts"] == "0" && waiting["outcome"] == nil)
                #expect(
                    try await f.value(
                        "SELECT run_at > now() + interval '30 seconds' FROM iap.jobs WHERE order_id = 'cash'"
                    ) == "t"
                )
                // Time passes: the job's next question is due.
                try await f.connection.execute("UPDATE iap.jobs SET run_at = now() WHERE order_id = 'cash'")
                try await f.waitUntilSettled()
            }
            #expect(try await f.order("cash")["outcome"] == "full")
            #expect(google.recordedPurchaseQueries().count == 2)
        }
    }

    @Test func whatPaysNothingIsNeverAcknowledged() async throws {
        try await Self.withGooglePlay { f, google, settings in
            try await enqueue(
                f,
                "cancelled",
                user: "u1",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1", state: 1)
            )
            try await enqueue(
                f,
                "first",
                user: "u2",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.2")
            )
            try await enqueue(
                f,
                "wrong-account",
                user: "u4",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.3", accountID: "someone-else"),
                account: "acct-4"
            )
            try await enqueue(
                f,
                "right-account",
                user: "u5",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.4", accountID: "acct-5"),
                account: "acct-5"
            )
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            // The same orderId again, under another token and another user: a replay.
            try await enqueue(
                f,
                "replay",
                user: "u3",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.2", purchaseTimeMilliseconds: 1)
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NULL") == "0"
                }
            }
            #expect(try await f.order("cancelled")["outcome"] == "unmatched")
            #expect(try await f.order("first")["outcome"] == "full")
            #expect(try await f.order("replay")["outcome"] == "unmatched")
            #expect(try await f.order("wrong-account")["outcome"] == "unmatched")
            #expect(try await f.order("right-account")["outcome"] == "full")
            #expect(Set(google.recordedFinalizations().map(\.token)).count == 2)
            #expect(google.recordedFinalizations().count == 2)
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    @Test func aRetriedPurchaseIsAskedOfGoogleAgainNotOfVerifyReceipt() async throws {
        try await Self.withGooglePlay { f, google, settings in
            // Google was unreachable until the job gave up; the operator retries the order once it is back.
            try await enqueue(f, "given-up", token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.7401"))
            let job = try #require(
                try await f.value("SELECT id FROM iap.jobs WHERE order_id = 'given-up'").flatMap { Int64($0) }
            )
            try await f.setJob(job, state: "failed", error: "transport: timed out")
            try await f.setOutcome("given-up", "failed")
            let retried = try ReceiptdBinary.run(["retry", "given-up", "--database-url", f.database.connectionString])
            #expect(retried.status == 0, "\(retried.stderr)")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil { google.recordedFinalizations().count == 1 }
            }
            let order = try await f.order("given-up")
            #expect(order["outcome"] == "full" && order["state"] == "succeeded", "\(order["last_error"] ?? "")")
            #expect(
                try await f.value("SELECT kind FROM iap.jobs WHERE id = $1", [try #require(Int64(order["id"] ?? ""))])
                    == "google_purchase"
            )
            #expect(google.recordedPurchaseQueries().count == 1 && f.standIn.recordedRequests().isEmpty)
        }
    }

    @Test func aTestPurchaseWithoutOrderIdIsKeyedByItsTokenAndIsSandbox() async throws {
        try await Self.withGooglePlay { f, _, settings in
            let token = SyntheticPurchaseToken(productID: "gems", testPurchase: true)
            try await enqueue(f, "tester", token: token)
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let ledger = try await f.row("SELECT transaction_id, environment FROM iap.deliveries")
            let digest = try await f.value("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')", [token.encoded()])
            #expect(ledger["transaction_id"] == digest && ledger["environment"] == "Sandbox")
        }
    }

    @Test func badTokensAreInvalidAndTransientErrorsAreRetried() async throws {
        try await Self.withGooglePlay { f, _, settings in
            try await enqueue(
                f,
                "unknown",
                user: "u1",
                token: SyntheticPurchaseToken(productID: "gems", script: [ScriptStep(http: 404)])
            )
            try await enqueue(
                f,
                "gone",
                user: "u2",
                token: SyntheticPurchaseToken(productID: "gems", script: [ScriptStep(http: 410)])
            )
            try await enqueue(
                f,
                "bad",
                user: "u3",
                token: SyntheticPurchaseToken(productID: "gems", script: [ScriptStep(http: 400)])
            )
            try await enqueue(
                f,
                "flaky",
                user: "u4",
                token: SyntheticPurchaseToken(
                    productID: "gems",
                    orderID: "GPA.5",
                    script: [
                        ScriptStep(http: 503), ScriptStep(http: 429, retryAfter: "1"), ScriptStep(http: 403),
                        ScriptStep(http: 500),
                    ]
                )
            )
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            for order in ["unknown", "gone", "bad"] {
                #expect(try await f.order(order)["outcome"] == "invalid", "\(order)")
            }
            let flaky = try await f.order("flaky")
            #expect(flaky["outcome"] == "full" && flaky["attempts"] == "5")
            #expect(try await f.value("SELECT count(*) FROM iap.attempts WHERE error_class = 'credentials'") == "1")
        }
    }

    @Test func theAccessTokenIsSharedAndRenewedOnceWhenRefused() async throws {
        try await Self.withGooglePlay { f, google, settings in
            for index in 0..<5 {
                try await enqueue(
                    f,
                    "o\(index)",
                    user: "u\(index)",
                    token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.1\(index)")
                )
            }
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                google.revokeAccessTokens()
                try await enqueue(
                    f,
                    "after",
                    user: "v",
                    token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.20")
                )
                try await f.waitUntilSettled()
            }
            let after = try await f.order("after")
            #expect(after["outcome"] == "full" && after["attempts"] == "1")
            #expect(google.recordedTokenRequests().filter(\.accepted).count == 2)
        }
    }

    @Test func consumeModeConsumesAndNoneModeOwesNothing() async throws {
        try await Self.withGooglePlay({ $0.googlePlay.finalize = .consume }) { f, google, settings in
            try await enqueue(f, "eaten", token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.30"))
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { google.recordedFinalizations().count == 1 }
            }
            #expect(google.recordedFinalizations().first?.action == .consume)
        }
        try await Self.withGooglePlay({ $0.googlePlay.finalize = .none }) { f, google, settings in
            try await enqueue(f, "left", token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.31"))
            try await enqueue(
                f,
                "done",
                user: "u2",
                token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.32", acknowledged: true)
            )
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT count(*) FROM iap.google_finalizations") == "0")
            #expect(google.recordedFinalizations().isEmpty)
        }
    }

    @Test func anAcknowledgementOwedSurvivesFailuresAndRestartsAndShowsWhenOverdue() async throws {
        try await Self.withGooglePlay({ $0.googlePlay.finalizeOverdue = .milliseconds(10) }) { f, google, settings in
            google.failFinalizations(1000)
            try await enqueue(f, "owed", token: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.40"))
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil { google.recordedFinalizations().count >= 2 }
                try await f.waitUntil {
                    try await f.value("SELECT reason FROM iap.stuck_jobs WHERE order_id = 'owed'")
                        == "acknowledgement_owed"
                }
            }
            #expect(try await f.value("SELECT last_error FROM iap.google_finalizations")?.contains("HTTP 503") == true)
            // Google is back; a restarted daemon still owes the call and makes it, once.
            google.failFinalizations(0)
            try await f.withDaemons(settings: settings) { _ in
                try await f.connection.execute("UPDATE iap.google_finalizations SET run_at = now()")
                try await f.waitUntil {
                    try await f.value("SELECT done_at IS NOT NULL FROM iap.google_finalizations") == "t"
                }
            }
            #expect(google.recordedFinalizations().filter { $0.httpStatus == 200 }.count == 1)
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }

    @Test func theWorkerRoleSettlesAcknowledgesAndRecordsRefunds() async throws {
        try await Self.withGooglePlay { f, google, settings in
            let worker = try await f.loginRole(in: "receiptd_worker")
            var asWorker = settings
            asWorker.databaseURL = worker
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.60")
            try await enqueue(f, "least-privilege", token: token)
            try await f.withDaemons(settings: asWorker) { _ in
                try await f.waitUntilSettled()
                try await f.waitUntil {
                    try await f.value("SELECT done_at IS NOT NULL FROM iap.google_finalizations") == "t"
                }
                google.void(token: token.encoded(), orderID: "GPA.60", reason: 7)
                try await f.waitUntil {
                    try await f.value("SELECT revocation_reason FROM iap.deliveries") == "chargeback"
                }
            }
            #expect(try await f.order("least-privilege")["outcome"] == "full")
        }
    }

    @Test func voidedPurchasesAreRecordedOnTheLedger() async throws {
        try await Self.withGooglePlay { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.50")
            try await enqueue(f, "refunded", token: token)
            try await f.withDaemons(settings: settings) { daemons in
                try await f.waitUntilSettled()
                #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('u1')") == "1")
                google.void(token: token.encoded(), orderID: "GPA.50", reason: 1)
                google.void(token: "someone-elses", orderID: "GPA.99", reason: 5)
                try await f.waitUntil { try await f.value("SELECT revoked_at IS NOT NULL FROM iap.deliveries") == "t" }
                // One daemon at a time: while another session holds the lock, a poll does nothing.
                let poller = try #require(daemons[0].companions.compactMap { $0 as? GoogleVoidedPoller }.first)
                try await f.connection.execute("SELECT pg_advisory_lock($1)", [GoogleVoidedPoller.lockKey])
                #expect(try await poller.pollOnce() == nil)
                try await f.connection.execute("SELECT pg_advisory_unlock($1)", [GoogleVoidedPoller.lockKey])
                #expect(try await poller.pollOnce() != nil)
            }
            let ledger = try await f.row("SELECT revocation_reason, store FROM iap.deliveries")
            #expect(ledger["revocation_reason"] == "remorse" && ledger["store"] == "google")
            // Refunded before the game granted it: it is no longer owed.
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('u1')") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.google_voided_cursor") == "1")
        }
    }
}
