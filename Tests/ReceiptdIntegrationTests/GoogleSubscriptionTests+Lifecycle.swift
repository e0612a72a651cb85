import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 37: a Google Play subscription's life after its first period, each change pushed as Google pushes it and
/// read again from subscriptionsv2: a failed renewal through grace and hold to recovery, a pause, a cancellation
/// ending at the period's end without news, a revocation, a prepaid plan's top-up, news out of order and twice,
/// and a daemon killed between the ledger and the acknowledgement.
extension GoogleSubscriptionTests {
    /// The subscription's `state`, `auto_renew` and whether `iap.entitlements` grants it now, as `state:auto:entitled`.
    func status(_ f: Fixture, user: String = "gina") async throws -> String {
        let row = try await f.row("SELECT state, auto_renew::text AS auto FROM iap.subscriptions")
        let entitled = try await f.value(
            "SELECT count(*) FROM iap.entitlements($1) WHERE kind = 'auto_renewable'",
            [user]
        )
        return "\(row["state"] ?? "-"):\(row["auto"] ?? "-"):\(entitled == "1")"
    }

    /// Waits for the subscription's status to be `expected`, saying what it was when it never is.
    func waitForStatus(_ f: Fixture, _ expected: String, timeout: Duration = .seconds(15)) async throws {
        do {
            try await f.waitUntil(timeout: timeout) { try await status(f) == expected }
        } catch {
            Issue.record("expected \(expected), the subscription is \(try await status(f))")
            throw error
        }
    }

    @Test func aFailedRenewalGoesThroughGraceAndHoldThenRecovers() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9700-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9700", orderID: first)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                let audience = "receiptd-subscriptions"
                // Google keeps the service while it retries the payment: still entitled, nothing new paid.
                try await google.changeSubscription(
                    .failRenewal(graceSeconds: 3600),
                    token,
                    notify: url,
                    audience: audience
                )
                try await waitForStatus(f, "grace_period:true:true")
                try await google.changeSubscription(.endGracePeriod, token, notify: url, audience: audience)
                try await waitForStatus(f, "on_hold:true:false")
                #expect(try await periods(f, "google:" + first).count == 1)
                // The payment goes through: a new period, its own renewal order, the service back.
                try await google.changeSubscription(.recover, token, notify: url, audience: audience)
                try await waitForStatus(f, "active:true:true")
                try await f.waitUntil { try await periods(f, "google:" + first).count == 2 }
                try await f.waitUntilSettled()
            }
            #expect(
                try await periods(f, "google:" + first) == [
                    ["g-9700", first], ["renewal:\(first)..0", "\(first)..0"],
                ]
            )
            #expect(
                try await f.value("SELECT string_agg(result, ',' ORDER BY id) FROM iap.store_notifications")
                    == "subscription_updated,subscription_updated,subscription_updated"
            )
            #expect(google.recordedFinalizations().filter { $0.httpStatus == 200 }.count == 1)
        }
    }

    @Test func aPausedSubscriptionGivesNothingUntilItResumes() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9710-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9710", orderID: first)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                let audience = "receiptd-subscriptions"
                try await google.changeSubscription(.pause, token, notify: url, audience: audience)
                try await waitForStatus(f, "paused:true:false")
                try await google.changeSubscription(.resume, token, notify: url, audience: audience)
                try await waitForStatus(f, "active:true:true")
                try await f.waitUntil { try await periods(f, "google:" + first).count == 2 }
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('gina')") == "2")
        }
    }

    @Test func aCancelledSubscriptionLastsItsPeriodAndExpiresWithoutNews() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9720-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9720", periodSeconds: 4, orderID: first)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                try await google.changeSubscription(.cancel, token, notify: url, audience: "receiptd-subscriptions")
                try await waitForStatus(f, "active:false:true")
                // Google sends nothing more: the re-read when the entitlement ends finds it expired.
                try await waitForStatus(f, "expired:false:false", timeout: .seconds(30))
                try await f.waitUntilSettled()
            }
            #expect(try await periods(f, "google:" + first).count == 1)
            #expect(try await f.value("SELECT count(*) FROM iap.store_notifications") == "1")
        }
    }

    @Test func aRevokedSubscriptionEndsAtOnceAndItsPeriodIsRevokedByThePoll() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.voidedInterval = .milliseconds(300) }) {
            f,
            google,
            base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9730-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9730", orderID: first)
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                try await google.changeSubscription(.revoke, token, notify: url, audience: "receiptd-subscriptions")
                try await waitForStatus(f, "expired:false:false")
                // No voided notification: the poll, asking for subscriptions too, finds the refunded period.
                try await f.waitUntil {
                    try await f.value(
                        "SELECT revoked_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = $1",
                        [first]
                    )
                        == "t"
                }
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('gina')") == "1")
            #expect(google.recordedVoidedQueries().allSatisfy { $0.type == "1" })
        }
    }

    @Test func aPrepaidPlanToppedUpRunsOnFromItsEnd() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9740-0000-0000-00001"
            let token = try await subscribe(
                f,
                google,
                order: "g-9740",
                periodSeconds: 3600,
                prepaid: true,
                orderID: first
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
                try await waitForStatus(f, "active:false:true")
                let before = try #require(
                    try await f.value("SELECT extract(epoch FROM entitled_until) FROM iap.subscriptions").flatMap(
                        Double.init
                    )
                )
                // The player buys a top-up in the app: a checkout, then the new token naming the old one.
                try await f.connection.execute(
                    "SELECT iap.create_order('g-9741', 'gina', 'vip_pass', 1, NULL, 'acct-gina')"
                )
                let topUp = try #require(try await google.topUpSubscription(token))
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase('g-9741', 'gina', 'vip_pass', $1, 1, 'acct-gina')",
                    [topUp]
                )
                try await f.waitUntil {
                    try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9741'") == "full"
                }
                try await f.waitUntil { google.subscriptionAcknowledged(topUp) }
                try await f.waitUntilSettled()
                let after = try #require(
                    try await f.value("SELECT extract(epoch FROM entitled_until) FROM iap.subscriptions").flatMap(
                        Double.init
                    )
                )
                #expect(after - before > 3590, "the top-up extends the plan by its period: \(before) → \(after)")
                let row = try await f.row(
                    "SELECT subscription_id, purchase_token, auto_renew::text AS auto FROM iap.subscriptions"
                )
                #expect(row["subscription_id"] == "google:" + first && row["purchase_token"] == topUp, "\(row)")
                #expect(row["auto"] == "false", "a prepaid plan never renews by itself: \(row)")
            }
            let orders = try await periods(f, "google:" + first).map { $0[0] ?? "" }
            #expect(orders == ["g-9740", "g-9741"])
            #expect(try await f.value("SELECT count(*) FROM iap.subscriptions") == "1")
            let acknowledged = google.recordedFinalizations().filter { $0.httpStatus == 200 }.map(\.token)
            #expect(acknowledged.count == 2 && Set(acknowledged).count == 2)
        }
    }

    @Test func newsOutOfOrderAndTwiceConvergesOnGooglesStateAndDeliversOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9750-0000-0000-00001"
            let token = try await subscribe(f, google, order: "g-9750", orderID: first)
            try await f.withDaemons(settings: base) { _ in
                try await f.waitUntil { try await periods(f, "google:" + first).count == 1 }
            }
            // Renewed, then cancelled; Google's pushes arrive the other way round, one of them twice as the same
            // Pub/Sub message and the renewal again as a new one.
            try await google.changeSubscription(.renew, token)
            try await google.changeSubscription(.cancel, token)
            let now = Date()
            func news(_ type: Int, _ at: Date) -> GoogleDeveloperNotification {
                .subscription(
                    token: token,
                    productID: "vip_pass",
                    type: type,
                    packageName: google.packageName,
                    eventTime: at
                )
            }
            let renewed = news(2, now.addingTimeInterval(-2))
            let cancelled = news(3, now.addingTimeInterval(-1))
            let audience = "receiptd-subscriptions"
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                #expect(try await google.push(cancelled, to: url, audience: audience, messageID: "m-cancel") == 200)
                #expect(try await google.push(renewed, to: url, audience: audience, messageID: "m-renew") == 200)
                #expect(try await google.push(cancelled, to: url, audience: audience, messageID: "m-cancel") == 200)
                #expect(try await google.push(renewed, to: url, audience: audience, messageID: "m-renew-again") == 200)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.store_notifications WHERE processed_at IS NULL") == "0"
                }
                // Each news has the subscription read again; the reads are done when none is due.
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.subscriptions WHERE read_due_at <= now()") == "0"
                }
                try await waitForStatus(f, "active:false:true")
                try await f.waitUntilSettled()
            }
            // The redelivered message is one notification; the renewal told twice is two, changing nothing.
            #expect(try await f.value("SELECT count(*) FROM iap.store_notifications") == "3")
            #expect(
                try await periods(f, "google:" + first) == [
                    ["g-9750", first], ["renewal:\(first)..0", "\(first)..0"],
                ]
            )
            #expect(try await status(f) == "active:false:true")
            #expect(
                try await f.value("SELECT string_agg(DISTINCT result, ',') FROM iap.store_notifications")
                    == "subscription_updated"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('gina')") == "2")
        }
    }

    @Test func aSubscriptionNobodyClaimedIsAcknowledgedAsOneOnceAssigned() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, base in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9770-0000-0000-00001"
            let token = google.subscribe(
                GoogleSubscriptionSale(
                    productID: "vip_pass",
                    periodSeconds: 3600,
                    accountID: "acct-nobody",
                    orderID: first
                )
            )
            try await f.withDaemonsAndGoogleIntake(settings: intakeSettings(base, google)) { url in
                #expect(
                    try await google.pushSubscriptionPurchased(token, to: url, audience: "receiptd-subscriptions")
                        == 200
                )
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.unclaimed_payments WHERE transaction_id = $1", [first])
                        == "1"
                }
                // Nothing acknowledges a payment nobody claimed.
                #expect(!google.subscriptionAcknowledged(token))
                try await f.connection.execute("SELECT iap.create_order('g-9770', 'gina', 'vip_pass')")
                try await f.connection.execute("SELECT iap.assign_payment($1, 'g-9770')", [first])
                #expect(
                    try await f.value("SELECT action FROM iap.google_finalizations WHERE transaction_id = $1", [first])
                        == "acknowledge_subscription"
                )
                try await f.waitUntil { google.subscriptionAcknowledged(token) }
            }
            let calls = google.recordedFinalizations()
            #expect(calls.map(\.action) == [.acknowledgeSubscription] && calls.first?.httpStatus == 200)
        }
    }

    /// `receiptd run` SIGKILLed after the first period's ledger row commits, while Google refuses the
    /// acknowledgement: the row stays the order's once, the acknowledgement stays owed, and the next daemon
    /// acknowledges it once.
    @Test func aDaemonKilledBetweenTheLedgerAndTheAcknowledgementAcknowledgesOnceLater() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await f.connection.execute("SELECT iap.define_product('google', 'vip_pass', 'auto_renewable')")
            let first = "GPA.9760-0000-0000-00001"
            google.failFinalizations(1_000_000)
            let token = try await subscribe(f, google, order: "g-9760", orderID: first)
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
            let log = account.appendingPathExtension("log")
            defer { try? FileManager.default.removeItem(at: log) }
            let process = try ReceiptdBinary.startDaemon(environment: environment, log: log)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            do {
                try await f.waitUntil(timeout: .seconds(15)) {
                    google.recordedFinalizations().contains { $0.token == token && $0.httpStatus == 503 }
                }
            } catch {
                Issue.record(
                    "the daemon never acknowledged: \(String(decoding: try Data(contentsOf: log), as: UTF8.self).suffix(3000))"
                )
                throw error
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try await periods(f, "google:" + first) == [["g-9760", first]])
            #expect(!google.subscriptionAcknowledged(token))
            #expect(try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NULL") == "1")
            // Google takes acknowledgements again; the owed one is sent once its retry comes due.
            google.failFinalizations(0)
            try await f.connection.execute(
                "UPDATE iap.google_finalizations SET run_at = now(), locked_by = NULL, locked_until = NULL"
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil(timeout: .seconds(15)) { google.subscriptionAcknowledged(token) }
                try await f.waitUntilSettled()
            }
            #expect(try await periods(f, "google:" + first) == [["g-9760", first]])
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'g-9760'") == "full")
            #expect(google.recordedFinalizations().filter { $0.httpStatus == 200 }.count == 1)
            #expect(try await f.value("SELECT count(*) FROM iap.google_finalizations WHERE done_at IS NULL") == "0")
        }
    }
}
