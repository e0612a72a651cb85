import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// Google's chargeback reviews (`pendingRefundReviewNotification`) from the push to `orders.reviewrefund`: the
/// request is recorded once, the game is asked, its answer (or the policy's) is sent from a durable owed answer,
/// retried through Google's failures, and at most once more after a daemon dies between sending and recording.
@Suite struct GoogleRefundReviewTests {
    /// Google's purchase of order `orderID` delivered to `user` (and granted by the game unless `granted` is false).
    private func deliver(_ f: Fixture, _ orderID: String, user: String = "u1", granted: Bool = true) async throws {
        try await f.enqueue(
            "order-\(orderID)",
            user: user,
            googleToken: SyntheticPurchaseToken(productID: "gems", orderID: orderID)
        )
        try await f.waitUntilSettled()
        if granted {
            try await f.connection.execute("SELECT iap.mark_granted($1, ARRAY[$2])", ["order-\(orderID)", orderID])
        }
    }

    @Test func aPushedReviewIsAskedOfTheGameAndItsAnswerReachesGoogleOnceThrough500() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            var settings = base
            settings.googlePlay.oidcCertsURL = google.oidcCertsURL
            settings.googlePlay.pubsubAudience = "receiptd-review"
            settings.googlePlay.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_refund_requested")
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemonsAndGoogleIntake(settings: settings, metrics: metrics) { url in
                try await deliver(f, "GPA.3101", user: "rita")
                let event = Date(timeIntervalSinceNow: -600)
                let (status, token) = try await google.pushRefundReview(
                    orderID: "GPA.3101",
                    reason: 7,
                    eventTime: event,
                    to: url,
                    audience: "receiptd-review"
                )
                #expect(status == 200)
                // The same review pushed again (a new message): still one request.
                #expect(
                    try await google.pushRefundReview(
                        orderID: "GPA.3101",
                        refundToken: token,
                        eventTime: event,
                        to: url,
                        audience: "receiptd-review"
                    ).status == 200
                )
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NOT NULL")
                        == "2"
                }
                let row = try await f.row(
                    """
                    SELECT store, transaction_id, user_id, order_id, reason, state,
                           round(extract(epoch FROM answer_by - to_timestamp($1::float8)))::text AS deadline
                    FROM iap.refund_requests WHERE request_id = $2
                    """,
                    [event.timeIntervalSince1970, token]
                )
                #expect(row["store"] == "google" && row["transaction_id"] == "GPA.3101" && row["user_id"] == "rita")
                #expect(row["order_id"] == "order-GPA.3101" && row["reason"] == "7" && row["state"] == "waiting")
                #expect(row["deadline"] == "86400", "24 hours after the event: \(row)")
                #expect(try await f.value("SELECT count(*) FROM iap.refund_requests") == "1")
                #expect(
                    try await f.value("SELECT string_agg(result, ',' ORDER BY id) FROM iap.store_notifications")
                        == "refund_review_requested,recorded"
                )
                let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
                #expect(notes.filter { $0.channel == "iap_refund_requested" }.count == 1)
                // Google fails once; the game's answer is sent again and taken.
                google.failRefundReviews(1, status: 500)
                try await f.connection.execute(
                    "SELECT iap.answer_refund_request($1, 30000, 'grant_prorated')",
                    [token]
                )
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.refund_requests WHERE request_id = $1", [token])
                        == "answered"
                }
            }
            await listener.close()
            let calls = google.recordedRefundReviews()
            #expect(calls.map(\.httpStatus) == [500, 200])
            let taken = try #require(calls.last)
            #expect(taken.orderID == "GPA.3101" && taken.pendingRefundToken != nil && taken.kept)
            #expect(taken.refundPreference == "APPROVE" && taken.consumptionPercentageMilliunits == 30_000)
            #expect(taken.sampleContentProvided == false)
            let answered = try await f.row(
                "SELECT answered_by, attempts::text, delivery_status, last_error FROM iap.refund_requests"
            )
            #expect(answered["answered_by"] == "game" && answered["attempts"] == "2")
            #expect(answered["delivery_status"] == nil && answered["last_error"] == nil)
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            for (name, labels) in [
                ("receiptd_refund_requests_total", ["store=\"google\""]),
                (
                    "receiptd_refund_requests_answered_total",
                    ["store=\"google\"", "answered_by=\"game\"", "preference=\"grant_prorated\""]
                ),
                ("receiptd_refund_answer_calls_total", ["store=\"google\"", "result=\"retry\""]),
                ("receiptd_refund_answer_calls_total", ["store=\"google\"", "result=\"sent\""]),
            ] {
                #expect(
                    lines.contains { line in
                        line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) } && line.hasSuffix(" 1")
                    },
                    "\(name) \(labels): \(lines.filter { $0.hasPrefix("receiptd_refund") })"
                )
            }
        }
    }

    @Test func aSilentGameIsAnsweredByThePolicyFromTheLedger() async throws {
        try await Fixture.withGooglePlayStandIn(settings: {
            $0.daemon.refunds.preference = .auto
            $0.daemon.refunds.gameWait = .seconds(1)
        }) { f, google, settings in
            try await f.withDaemons(settings: settings) { _ in
                try await deliver(f, "GPA.3201", granted: false)
                for order in ["GPA.3202", "GPA.3203", "GPA.3204"] { try await deliver(f, order) }
                try await deliver(f, "GPA.3205", user: "abuser")
                // Three refunds of the abuser's in the last 90 days: the limit.
                for order in ["GPA.3206", "GPA.3207", "GPA.3208"] { try await deliver(f, order, user: "abuser") }
                try await f.connection.execute(
                    """
                    UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'voided'
                    WHERE transaction_id IN ('GPA.3206', 'GPA.3207', 'GPA.3208')
                    """
                )
                try await f.connection.execute("SELECT iap.report_consumption('GPA.3203', 80000)")
                try await f.connection.execute("SELECT iap.report_consumption('GPA.3204', 40000)")
                try await f.connection.execute("SELECT iap.report_consumption('GPA.3205', 10000)")
                try await f.askRefund("GPA.3200", store: .google, user: "u1")  // never delivered
                for order in ["GPA.3201", "GPA.3202", "GPA.3203", "GPA.3204"] {
                    try await f.askRefund(order, store: .google, user: "u1")
                }
                try await f.askRefund("GPA.3205", store: .google, user: "abuser")
                try await f.waitUntil(timeout: .seconds(15)) {
                    try await f.value("SELECT count(*) FROM iap.refund_requests WHERE state = 'answered'") == "6"
                }
            }
            let sent = Dictionary(
                google.recordedRefundReviews().map { ($0.orderID, $0) },
                uniquingKeysWith: { first, _ in first }
            )
            let expected: [(String, String, Int?)] = [
                ("GPA.3200", "APPROVE", 0),  // not delivered
                ("GPA.3201", "APPROVE", 0),  // delivered, never granted
                ("GPA.3202", "NEUTRAL", nil),  // granted, nothing reported
                ("GPA.3203", "DECLINE", 80_000),  // granted and consumed
                ("GPA.3204", "APPROVE", 40_000),  // granted and partly consumed: prorated
                ("GPA.3205", "DECLINE", 10_000),  // a player at the refund limit
            ]
            for (order, preference, consumed) in expected {
                let call = try #require(sent[order], "\(order) was never sent")
                #expect(call.refundPreference == preference, "\(order)")
                #expect(call.consumptionPercentageMilliunits == consumed, "\(order)")
            }
            #expect(google.recordedRefundReviews().count == 6)
            #expect(
                try await f.value("SELECT string_agg(DISTINCT answered_by, ',') FROM iap.refund_requests") == "policy"
            )
        }
    }

    /// `receiptd run` SIGKILLed while Google holds its call: the row stays owed, and the next daemon sends it
    /// again once the lease ends; Google keeps the first answer, so the player's case is told once.
    @Test func aDaemonKilledBetweenSendingAndRecordingSendsAtMostOnceMore() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = try await f.askRefund("GPA.3301", store: .google, user: "u1")
            try await f.connection.execute(
                "SELECT iap.answer_refund_request($1, NULL, 'decline')",
                [token]
            )
            let account = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
            try google.writeServiceAccount(toFile: account.path)
            defer { try? FileManager.default.removeItem(at: account) }
            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_SHARED_SECRET": Fixture.sharedSecret, "RECEIPTD_METRICS_ADDR": "",
                "RECEIPTD_POLL_INTERVAL": "0.1", "RECEIPTD_SHUTDOWN_GRACE": "1",
                "GOOGLE_SERVICE_ACCOUNT_FILE": account.path, "GOOGLE_PLAY_PACKAGE_NAME": google.packageName,
                "GOOGLE_PLAY_API_URL": google.baseURL,
            ]) { $1 }
            google.holdRefundReviews(milliseconds: 30_000)
            let log = account.appendingPathExtension("log")
            defer { try? FileManager.default.removeItem(at: log) }
            let process = try ReceiptdBinary.startDaemon(environment: environment, log: log)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            do {
                try await f.waitUntil(timeout: .seconds(15)) { !google.recordedRefundReviews().isEmpty }
            } catch {
                Issue.record(
                    "the daemon never called: \(String(decoding: try Data(contentsOf: log), as: UTF8.self).suffix(3000))"
                )
                throw error
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try await f.value("SELECT state FROM iap.refund_requests") == "answering")
            #expect(try await f.value("SELECT locked_until > now() FROM iap.refund_requests") == "t")
            // The dead daemon's lease ends (its length is not what this test is about).
            try await f.connection.execute("UPDATE iap.refund_requests SET locked_until = now() - interval '1 second'")
            google.holdRefundReviews(milliseconds: 0)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(15)) {
                    try await f.value("SELECT state FROM iap.refund_requests") == "answered"
                }
            }
            let calls = google.recordedRefundReviews()
            #expect(calls.count == 2 && calls.allSatisfy { $0.httpStatus == 200 })
            #expect(calls.map(\.kept) == [true, false])
            #expect(calls.allSatisfy { $0.refundPreference == "DECLINE" && $0.pendingRefundToken == token })
        }
    }

    @Test func theRefundLimitCostsThePlayerTheStoreOfTheLatestRefund() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            try await f.withDaemons(settings: settings) { _ in
                for order in ["GPA.3401", "GPA.3402", "GPA.3403", "GPA.3404"] {
                    try await deliver(f, order, user: "rex")
                }
            }
            try await f.connection.execute("SELECT iap.set_refund_abuse_limit(2)")
            func refund(_ order: String, reason: String = "voided") async throws {
                try await f.connection.execute(
                    "UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = $2 WHERE transaction_id = $1",
                    [order, reason]
                )
            }
            // Paid orders leave a trusted row behind (`restored`); the limit's row says `refunds`.
            func trust() async throws -> String? {
                try await f.value(
                    "SELECT trusted::text || ' ' || store FROM iap.user_trust WHERE user_id = 'rex' AND reason = 'refunds'"
                )
            }
            // Family Sharing revocations are no refund of the player's.
            try await refund("GPA.3401", reason: "family_sharing")
            try await refund("GPA.3402")
            #expect(try await trust() == nil)
            // Some units of the same purchase again: still one purchase refunded.
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revoked_quantity = 1 WHERE transaction_id = 'GPA.3402'"
            )
            #expect(try await trust() == nil)
            try await refund("GPA.3403")
            #expect(try await trust() == "false google")
            // 0 turns it off.
            try await f.connection.execute("DELETE FROM iap.user_trust")
            try await f.connection.execute("SELECT iap.set_refund_abuse_limit(0)")
            try await refund("GPA.3404")
            #expect(try await trust() == nil)
        }
    }

    @Test func anOperatorAnswersAWaitingRequestThroughTheBinary() async throws {
        try await Fixture.with { f in
            let token = try await f.askRefund("GPA.3501", store: .google, user: "ola")
            let url = try await f.loginRole(in: "receiptd_operator")
            let listed = try ReceiptdBinary.run([
                "refunds", "ola", "--state", "waiting", "--json", "--database-url", url,
            ])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
            )
            #expect(rows.map { $0["request_id"] as? String } == [token])
            #expect(rows.first?["store"] as? String == "google" && rows.first?["state"] as? String == "waiting")

            let answered = try ReceiptdBinary.run([
                "refunds", "answer", token, "--preference", "decline", "--consumed", "90000", "--database-url", url,
            ])
            #expect(answered.status == 0, "\(answered.stderr)")
            #expect(answered.stdout.contains("answered decline"))
            let row = try await f.row(
                "SELECT state, answered_by, preference, consumed_milliunits FROM iap.refund_requests"
            )
            #expect(row["state"] == "answering" && row["answered_by"] == "operator")
            #expect(row["preference"] == "decline" && row["consumed_milliunits"] == "90000")

            let again = try ReceiptdBinary.run([
                "refunds", "answer", token, "--preference", "none", "--database-url", url,
            ])
            #expect(again.status == 4 && again.stderr.contains("answering already"), "\(again.stderr)")
            let unknown = try ReceiptdBinary.run([
                "refunds", "answer", "prt-nope", "--preference", "none", "--database-url", url,
            ])
            #expect(unknown.status == 3, "\(unknown.stderr)")
            let bad = try ReceiptdBinary.run([
                "refunds", "answer", token, "--preference", "grant_prorated", "--database-url", url,
            ])
            #expect(bad.status == 2, "\(bad.stderr)")
            let actions = try await f.connection.execute(
                "SELECT action, target, left(result, 8) FROM iap.operator_actions ORDER BY id"
            ).rows
            #expect(
                actions == [
                    ["answer_refund", token, "decline "], ["answer_refund", token, "refused:"],
                    ["answer_refund", "prt-nope", "not foun"],
                ]
            )
        }
    }
}
