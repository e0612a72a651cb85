import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Seed 004's trust levels end to end, through running daemons and the stand-in stores: a trusted player's order
/// is granted provisionally while the store fails, the grant is confirmed or refuted as verification ends, and
/// trust is lost and regained as the issue's rules say.
@Suite struct ProvisionalGrantTests {
    /// A receipt paying `id` whose first call is answered 503 asking for a wait of `wait` seconds: the store
    /// holds the order up that long, then answers with the receipt itself (`status`, `bundle`).
    private static func heldUp(
        _ id: String,
        for wait: Int,
        status: Int? = nil,
        bundle: String? = nil
    ) -> String {
        SyntheticReceipt(
            status: status,
            bundleID: bundle,
            inApp: [Receipts.purchase(id)],
            script: [.httpStatus(503, retryAfter: String(wait))]
        ).encoded()
    }

    /// The JSON objects of the notifications `listener` received on `channel` so far (within a second).
    private static func payloads(_ listener: PostgresConnection, _ channel: String) async throws -> [[String: Any]] {
        let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
        return notes.filter { $0.channel == channel }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any]
        }
    }

    /// Apple answers 503 to everything: the trusted player's order is granted once its job has failed for
    /// `RECEIPTD_PROVISIONAL_AFTER` (not before), the untrusted player's is not; once the breaker is open, a
    /// trusted player's new order is granted at once (`breaker_open`).
    @Test func aTrustedPlayersOrderIsGrantedDuringAnOutageAndAnUntrustedPlayersIsNot() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.setTrust("mallory", trusted: false)
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_verified")
            try await f.enqueue("alice-1", user: "alice", receipt: Receipts.paying("7101"))
            try await f.enqueue("mallory-1", user: "mallory", receipt: Receipts.paying("7102"))
            // The breaker stays closed: the 503s alone are the reason.
            let failing = f.provisionalSettings { $0.daemon.circuitBreaker.minimumCalls = 1_000_000 }
            try await f.withDaemons(settings: failing) { _ in
                try await f.waitForGrant("alice-1")
                try await f.waitUntilFailing("mallory-1")
                try await Task.sleep(for: .seconds(1.5))
                #expect(try await f.provisionalGrant("mallory-1") == nil)
                // The job keeps retrying with its backoff.
                #expect(try await f.order("alice-1")["state"] == "pending")
            }
            let grant = try #require(try await f.provisionalGrant("alice-1"))
            #expect(grant["cause"] == "store_failing" && grant["granted"] == "f" && grant["quantity"] == "1")
            #expect(
                try await f.value(
                    """
                    SELECT g.created_at - j.created_at >= interval '1 second'
                    FROM iap.provisional_grants g JOIN iap.jobs j ON j.id = g.job_id WHERE g.order_id = 'alice-1'
                    """
                ) == "t",
                "not before RECEIPTD_PROVISIONAL_AFTER from the input's arrival"
            )
            #expect(try await f.owed("alice") == ["provisional:alice-1:true"])
            #expect(try await f.status("alice-1") == "verified")
            #expect(try await f.owed("mallory") == [])
            #expect(try await f.status("mallory-1") == "pending")
            let mallory = try await f.trust("mallory")
            #expect(mallory["trusted"] == "f" && mallory["reason"] == "operator: test")
            #expect(try await f.trust("alice")["unconfirmed_grants"] == "1")
            let verified = try await Self.payloads(listener, "iap_verified")
            #expect(verified.count == 1)
            #expect(verified.first?["order_id"] as? String == "alice-1")
            #expect(verified.first?["user_id"] as? String == "alice")
            #expect(verified.first?["provisional"] as? Bool == true)

            // Now the breaker opens (3 calls judged) and stays open: a new order of a trusted player is granted
            // without waiting, one of the untrusted player is not.
            let breaking = f.provisionalSettings {
                $0.daemon.circuitBreaker.window = 3
                $0.daemon.circuitBreaker.minimumCalls = 3
                $0.daemon.circuitBreaker.baseCooldown = .seconds(30)
                $0.daemon.circuitBreaker.maximumCooldown = .seconds(30)
            }
            try await f.withDaemons(settings: breaking) { _ in
                try await f.waitUntil {
                    try await f.value(
                        "SELECT paused_apis::text FROM iap.daemons WHERE 'verify_receipt' = ANY (paused_apis)"
                    )
                        == "{verify_receipt}"
                }
                try await f.enqueue("alice-2", user: "alice", receipt: Receipts.paying("7103"))
                try await f.enqueue("mallory-2", user: "mallory", receipt: Receipts.paying("7104"))
                try await f.waitForGrant("alice-2")
                try await Task.sleep(for: .seconds(1.5))
                #expect(try await f.provisionalGrant("mallory-2") == nil)
            }
            #expect(try await f.provisionalGrant("alice-2")?["cause"] == "breaker_open")
            #expect(try await f.owed("alice") == ["provisional:alice-1:true", "provisional:alice-2:true"])
            #expect(try await f.owed("mallory") == [])
            await listener.close()
        }
    }

    /// The outage ends and both grants are confirmed, nothing owed twice: the game that granted the provisional
    /// row before has the real row granted too (order finished, nothing owed); the game that had not owes the
    /// real row once, and the provisional row is gone.
    @Test func theOutageEndsAndTheGrantIsConfirmedWithNothingOwedTwice() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.enqueue("before-1", user: "bea", receipt: Receipts.paying("7201"))
            try await f.enqueue("after-1", user: "abe", receipt: Receipts.paying("7202"))
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                try await f.waitForGrant("before-1")
                try await f.waitForGrant("after-1")
                #expect(
                    try await f.value("SELECT iap.mark_granted('before-1', ARRAY['provisional:before-1'])") == "1"
                )
                #expect(try await f.owed("bea") == [])
                #expect(try await f.status("before-1") == "finished")
                f.standIn.setOutage(false)
                try await f.waitForGrant("before-1", state: "confirmed")
                try await f.waitForGrant("after-1", state: "confirmed")
                try await f.waitUntilSettled()
            }
            // Granted before: the real row is granted with it; the order is finished and nothing is owed.
            #expect(try await f.owed("bea") == [])
            #expect(try await f.status("before-1") == "finished")
            #expect(
                try await f.value("SELECT granted_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = '7201'")
                    == "t"
            )
            #expect(try await f.value("SELECT iap.mark_granted('before-1')") == "0")
            // Granted after: the real row is owed, once, and the provisional row is gone from every view.
            #expect(try await f.owed("abe") == ["7202:false"])
            #expect(try await f.status("after-1") == "verified")
            #expect(try await f.value("SELECT iap.mark_granted('after-1', ARRAY['provisional:after-1'])") == "0")
            #expect(try await f.value("SELECT iap.mark_granted('after-1', ARRAY['7202'])") == "1")
            #expect(try await f.owed("abe") == [])
            #expect(try await f.status("after-1") == "finished")
            for (order, user) in [("before-1", "bea"), ("after-1", "abe")] {
                #expect(try await f.order(order)["outcome"] == "full")
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations($1)", [user]) == "0")
                let trust = try await f.trust(user)
                #expect(trust["trusted"] == "t" && trust["unconfirmed_grants"] == "0")
            }
        }
    }

    /// A grant of two units the game took, confirmed by a payment of one (`partial`): exchanged for the real row,
    /// which is owed while the grant is handed back (`provisional_replaced`); the unit paid later is owed as any.
    @Test func aGrantTheGameTookThatAPartialPaymentConfirmedIsExchangedForTheRealRow() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.enqueue("part-1", user: "pat", receipt: Receipts.paying("7901"), quantity: 2)
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                try await f.waitForGrant("part-1")
                #expect(try await f.owed("pat") == ["provisional:part-1:true"])
                #expect(try await f.value("SELECT iap.mark_granted('part-1', ARRAY['provisional:part-1'])") == "1")
                f.standIn.setOutage(false)
                try await f.waitForGrant("part-1", state: "confirmed")
                try await f.waitUntilSettled()
                #expect(try await f.order("part-1")["outcome"] == "partial")
                // One unit paid of the two granted: the real row is owed, the grant handed back whole.
                #expect(try await f.owed("pat") == ["7901:false"])
                let handBack = try await f.row("SELECT * FROM iap.owed_revocations($1)", ["pat"])
                #expect(handBack["transaction_id"] == "provisional:part-1")
                #expect(handBack["revocation_reason"] == "provisional_replaced" && handBack["granted"] == "t")
                #expect(handBack["revoked_quantity"] == "2")
                #expect(try await f.value("SELECT iap.mark_granted('part-1', ARRAY['7901'])") == "1")
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['provisional:part-1'])") == "1")
                try await f.enqueue("part-1", user: "pat", receipt: Receipts.paying("7901", "7902"), quantity: 2)
                try await f.waitUntilSettled()
            }
            // The rest, paid later, is owed as any delivery: the player ends with the two units paid.
            #expect(try await f.order("part-1")["outcome"] == "full")
            #expect(try await f.owed("pat") == ["7902:false"])
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('pat')") == "0")
        }
    }

    /// A forged receipt (Apple's 21003 once the outage is over) and a receipt of another app, both granted
    /// provisionally, are refuted: the revocation is owed as `provisional:<order>` (`provisional_refuted`),
    /// game servers hear it on iap_revoked, the player is untrusted, and their next order in an outage waits.
    @Test func aForgedReceiptGrantedProvisionallyIsRefutedAndCostsTrust() async throws {
        try await Fixture.with { f in
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await f.enqueue("forged-1", user: "fred", receipt: Self.heldUp("7301", for: 3, status: 21003))
            try await f.enqueue(
                "other-app-1",
                user: "olaf",
                receipt: Self.heldUp("7302", for: 3, bundle: "com.example.other")
            )
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                try await f.waitForGrant("forged-1")
                try await f.waitForGrant("other-app-1")
                try await f.waitForGrant("forged-1", state: "refuted")
                try await f.waitForGrant("other-app-1", state: "refuted")
                try await f.waitUntilSettled()
            }
            for (order, user, granted) in [("forged-1", "fred", "f"), ("other-app-1", "olaf", "f")] {
                #expect(try await f.order(order)["outcome"] == "invalid")
                #expect(try await f.provisionalGrant(order)?["refuted_by"] == "invalid")
                let owed = try await f.row(
                    "SELECT * FROM iap.owed_revocations($1)",
                    [user]
                )
                #expect(owed["transaction_id"] == "provisional:\(order)" && owed["order_id"] == order)
                #expect(owed["revocation_reason"] == "provisional_refuted" && owed["granted"] == granted)
                #expect(owed["revoked_quantity"] == "1" && owed["product_id"] == "gems")
                #expect(try await f.owed(user) == [])
                let trust = try await f.trust(user)
                #expect(
                    trust["trusted"] == "f" && trust["reason"] == "provisional_refuted" && trust["order_id"] == order
                )
            }
            // Never granted: the order waits unpaid again.
            #expect(try await f.status("other-app-1") == "pending")
            #expect(try await f.status("forged-1") == "pending")
            let revoked = try await Self.payloads(listener, "iap_revoked")
            #expect(
                Set(revoked.compactMap { $0["transaction_id"] as? String })
                    == ["provisional:forged-1", "provisional:other-app-1"]
            )
            #expect(revoked.first { $0["order_id"] as? String == "forged-1" }?["user_id"] as? String == "fred")
            #expect(
                try await f.value(
                    "SELECT iap.mark_revocation_handled(ARRAY['provisional:forged-1', 'provisional:other-app-1'])"
                ) == "2"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('fred')") == "0")

            // The next order of the player, during an outage, is not granted.
            f.standIn.setOutage(true)
            try await f.enqueue("forged-2", user: "fred", receipt: Receipts.paying("7303"))
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                try await f.waitUntilFailing("forged-2")
                try await Task.sleep(for: .seconds(1.5))
                #expect(try await f.provisionalGrant("forged-2") == nil)
            }
            #expect(try await f.status("forged-2") == "pending")
            await listener.close()
        }
    }

    /// A forged receipt granted provisionally during an outage, which the game granted before verification refuted
    /// it: the revocation is owed with `granted` true (take the goods back), the order stays `finished`, and the
    /// player is untrusted.
    @Test func aGrantTheGameTookThatVerificationRefutesIsOwedBack() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.enqueue("taken-1", user: "tina", receipt: SyntheticReceipt(status: 21003).encoded())
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                try await f.waitForGrant("taken-1")
                #expect(try await f.value("SELECT iap.mark_granted('taken-1', ARRAY['provisional:taken-1'])") == "1")
                #expect(try await f.status("taken-1") == "finished")
                f.standIn.setOutage(false)
                try await f.waitForGrant("taken-1", state: "refuted", timeout: .seconds(40))
                try await f.waitUntilSettled()
            }
            let owed = try await f.row("SELECT * FROM iap.owed_revocations($1)", ["tina"])
            #expect(owed["transaction_id"] == "provisional:taken-1")
            #expect(owed["revocation_reason"] == "provisional_refuted" && owed["granted"] == "t")
            #expect(owed["revoked_quantity"] == "1")
            #expect(try await f.order("taken-1")["outcome"] == "invalid")
            #expect(try await f.status("taken-1") == "finished")
            #expect(try await f.trust("tina")["reason"] == "provisional_refuted")
        }
    }

    /// An `invalid` order costs trust; an order that pays nothing (`no_in_app`) breaks the row; then
    /// `RECEIPTD_TRUST_RESTORE_AFTER` (3) orders in a row that end paid restore it, and the next outage grants.
    @Test func threeGoodOrdersInARowRestoreTrust() async throws {
        try await Fixture.with { f in
            try await f.withDaemons(settings: f.provisionalSettings()) { _ in
                func settle(_ order: String, _ receipt: String) async throws {
                    try await f.enqueue(order, user: "rita", receipt: receipt)
                    try await f.waitUntilSettled()
                }
                try await settle("bad", SyntheticReceipt(status: 21003).encoded())
                var trust = try await f.trust("rita")
                #expect(trust["trusted"] == "f" && trust["reason"] == "invalid" && trust["order_id"] == "bad")
                try await settle("good-1", Receipts.paying("7401"))
                #expect(try await f.trust("rita")["streak"] == "1")
                try await settle("empty", SyntheticReceipt(inApp: []).encoded())
                trust = try await f.trust("rita")
                #expect(trust["trusted"] == "f" && trust["streak"] == "0", "an order that paid nothing breaks the row")
                try await settle("good-2", Receipts.paying("7402"))
                try await settle("good-3", Receipts.paying("7403"))
                trust = try await f.trust("rita")
                #expect(trust["trusted"] == "f" && trust["streak"] == "2")
                try await settle("good-4", Receipts.paying("7404"))
                trust = try await f.trust("rita")
                #expect(trust["trusted"] == "t" && trust["streak"] == "0")
                #expect(trust["reason"] == "restored" && trust["order_id"] == "good-4")

                f.standIn.setOutage(true)
                try await f.enqueue("outage", user: "rita", receipt: Receipts.paying("7405"))
                try await f.waitForGrant("outage")
            }
        }
    }

    /// `RECEIPTD_PROVISIONAL_LIMIT` (2): a player's third waiting order is not granted while two grants are
    /// unconfirmed, and is once one of them is confirmed; another player is not held back by it.
    @Test func aPlayersThirdWaitingOrderWaitsForTheLimit() async throws {
        try await Fixture.with { f in
            // The first order's store answers after 4 s; the others' not within the test.
            try await f.enqueue("lim-1", user: "lena", receipt: Self.heldUp("7501", for: 4))
            try await Task.sleep(for: .milliseconds(20))
            try await f.enqueue("lim-2", user: "lena", receipt: Self.heldUp("7502", for: 60))
            try await Task.sleep(for: .milliseconds(20))
            try await f.enqueue("lim-3", user: "lena", receipt: Self.heldUp("7503", for: 60))
            try await f.enqueue("other-1", user: "otto", receipt: Self.heldUp("7504", for: 60))
            try await f.withDaemons(settings: f.provisionalSettings(limit: 2)) { _ in
                try await f.waitForGrant("lim-1")
                try await f.waitForGrant("lim-2")
                try await f.waitForGrant("other-1")
                #expect(try await f.provisionalGrant("lim-3") == nil)
                #expect(try await f.trust("lena")["unconfirmed_grants"] == "2")
                #expect(try await f.owed("lena") == ["provisional:lim-1:true", "provisional:lim-2:true"])
                try await f.waitForGrant("lim-1", state: "confirmed")
                try await f.waitForGrant("lim-3")
            }
            #expect(
                Set(try await f.owed("lena")) == ["7501:false", "provisional:lim-2:true", "provisional:lim-3:true"]
            )
        }
    }

    /// A Google Play player starts untrusted (`RECEIPTD_TRUST_INITIAL_GOOGLE`): their order waits through a
    /// Google outage; an operator's trust, or a daemon started with Google players trusted, grants it.
    @Test func aGooglePlayerIsUntrustedByDefault() async throws {
        try await Fixture.withGooglePlayStandIn(settings: Fixture.provision) { f, google, settings in
            google.failPurchaseLookups(status: 503)
            try await f.enqueue(
                "g-1",
                user: "gus",
                googleToken: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.61")
            )
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilFailing("g-1")
                try await Task.sleep(for: .seconds(1.5))
                #expect(try await f.provisionalGrant("g-1") == nil)
                let gus = try await f.trust("gus", store: "google")
                #expect(gus["trusted"] == "f" && gus["recorded"] == "f")
                #expect(try await f.trust("gus", store: "apple")["trusted"] == "t")
                try await f.setTrust("gus", store: "google", trusted: true)
                try await f.waitForGrant("g-1")
            }
            #expect(try await f.provisionalGrant("g-1")?["user_id"] == "gus")
            #expect(try await f.owed("gus") == ["provisional:g-1:true"])

            try await f.enqueue(
                "g-2",
                user: "gwen",
                googleToken: SyntheticPurchaseToken(productID: "gems", orderID: "GPA.62")
            )
            var trusting = settings
            trusting.trust.initialGoogle = .trusted
            try await f.withDaemons(settings: trusting) { _ in
                try await f.waitForGrant("g-2")
                google.failPurchaseLookups(status: nil)
                try await f.waitForGrant("g-1", state: "confirmed")
                try await f.waitForGrant("g-2", state: "confirmed")
            }
            #expect(try await f.value("SELECT initial_google FROM iap.trust_policy") == "t")
            #expect(try await f.value("SELECT store FROM iap.provisional_grants WHERE order_id = 'g-2'") == "google")
            #expect(try await f.owed("gwen") == ["GPA.62:false"])
        }
    }

    /// A transaction id and a Google purchase token already delivered to another order, sent again for a new
    /// order, pay nothing, say so in `last_error`, and cost the sender trust (`replay`); a receipt that lists the
    /// player's own earlier purchase beside a new one costs nothing.
    @Test func aReplayedInputCostsTrustAndAReceiptListingOwnPurchasesDoesNot() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            let token = UUID()
            f.standIn.register(
                SignedTransactionPayload(
                    transactionId: "8701",
                    productId: "gems",
                    environment: "Production",
                    appAccountToken: token.uuidString.lowercased()
                )
            )
            let purchase = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.71")
            try await f.enqueue("tx-1", user: "rex", transaction: "8701", appAccountToken: token)
            try await f.enqueue("gp-1", user: "gil", googleToken: purchase)
            try await f.enqueue("rc-1", user: "rae", receipt: Receipts.paying("8711"))
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                try await f.enqueue("tx-2", user: "rex", transaction: "8701", appAccountToken: token)
                try await f.enqueue("gp-2", user: "gil", googleToken: purchase)
                try await f.enqueue("rc-2", user: "rae", receipt: Receipts.paying("8711", "8712"))
                try await f.waitUntilSettled()
            }
            for (first, replay, user, store) in [("tx-1", "tx-2", "rex", "apple"), ("gp-1", "gp-2", "gil", "google")] {
                #expect(try await f.order(first)["outcome"] == "full")
                let row = try await f.order(replay)
                #expect(row["delivered_quantity"] == "0", "\(replay)")
                #expect(
                    row["last_error"]?.contains("a replayed input") == true,
                    "\(replay): \(row["last_error"] ?? "")"
                )
                let trust = try await f.trust(user, store: store)
                #expect(trust["trusted"] == "f" && trust["reason"] == "replay" && trust["order_id"] == replay)
            }
            #expect(try await f.order("rc-2")["outcome"] == "full")
            #expect(try await f.order("rc-2")["last_error"] == nil)
            let rae = try await f.trust("rae")
            #expect(rae["trusted"] == "t" && rae["recorded"] == "f")
        }
    }

    /// `receiptd run` SIGKILLed between the provisional grant and its confirmation: the grant stays owed, and the
    /// next daemon confirms it once the store answers, nothing owed twice.
    @Test func aDaemonKilledBetweenTheGrantAndItsConfirmationLeavesItToBeConfirmedOnce() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.enqueue("killed-1", user: "kim", receipt: Receipts.paying("7801"))
            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_SHARED_SECRET": Fixture.sharedSecret, "APPLE_VERIFY_URL": f.standIn.productionURL,
                "APPLE_SANDBOX_VERIFY_URL": f.standIn.sandboxURL, "RECEIPTD_METRICS_ADDR": "",
                "RECEIPTD_POLL_INTERVAL": "0.1", "RECEIPTD_BACKOFF_BASE": "0.05", "RECEIPTD_BACKOFF_MAX": "0.2",
                "RECEIPTD_SHUTDOWN_GRACE": "1", "RECEIPTD_MAX_ATTEMPTS": "1000", "RECEIPTD_APPLE_TIMEOUT": "2",
                "RECEIPTD_LEASE": "5", "RECEIPTD_PROVISIONAL": "on", "RECEIPTD_PROVISIONAL_AFTER": "1s",
            ]) { $1 }
            let process = try ReceiptdBinary.startDaemon(environment: environment)
            do {
                try await f.waitForGrant("killed-1", timeout: .seconds(30))
            } catch {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw error
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(try await f.owed("kim") == ["provisional:killed-1:true"])

            f.standIn.setOutage(false)
            // Grants off: confirming needs no TrustKeeper, only verification. As many attempts as the first daemon
            // had: with the fixture's five, the outage's attempts before the kill (five or more when the first
            // daemon is quick) made the reclaim fail the job, and the grant was refuted instead of confirmed.
            let next = f.settings {
                $0.daemon.lease = .seconds(5)
                $0.daemon.maxAttempts = 1000
            }
            try await f.withDaemons(settings: next) { _ in
                try await f.waitForGrant("killed-1", state: "confirmed", timeout: .seconds(30))
                try await f.waitUntilSettled()
            }
            #expect(try await f.owed("kim") == ["7801:false"])
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE order_id = 'killed-1'") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.provisional_grants") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('kim')") == "0")
            #expect(try await f.trust("kim")["trusted"] == "t")
        }
    }
}
