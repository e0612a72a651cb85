import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// The daemons' processing of recorded store notifications: what each type does to the ledger, handed to the game
/// through owed_revocations and NOTIFY, exactly once whatever crashes or locks get in the way.
@Suite struct NotificationProcessingTests {
    private static func transaction(
        _ id: String,
        product: String = "gems",
        token: UUID? = nil,
        reason: Int? = nil,
        type: String? = nil,
        percentage: Int? = nil
    ) -> SignedTransactionPayload {
        let revoked = reason != nil
        return SignedTransactionPayload(
            transactionId: id,
            productId: product,
            appAccountToken: token?.uuidString.lowercased(),
            revocationDate: revoked ? SignedTransactionPayload.nowMilliseconds() : nil,
            revocationReason: reason,
            revocationType: type,
            revocationPercentage: percentage
        )
    }

    /// Delivers `id` to a new order of `user` through a client's signed transaction.
    private func deliver(_ f: Fixture, _ id: String, order: String, user: String = "alice") async throws {
        try await f.enqueue(order, user: user, transaction: f.standIn.testChain.signedTransaction(Self.transaction(id)))
        try await f.waitUntilSettled()
        #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = $1", [id]) == "1")
    }

    @Test func aRefundAfterDeliveryIsHandedToTheGameOnceAndAReversalOwesTheUnitsAgain() async throws {
        try await Fixture.with { f in
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await listener.execute("LISTEN iap_verified")
            try await f.withDaemons { _ in
                try await deliver(f, "8001", order: "o1")
                #expect(try await f.value("SELECT iap.mark_granted('o1')") == "1")
                _ = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 100) }

                let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8001", reason: 1))
                try await f.expectProcessed(refund, "revoked")
                let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
                let revoked = notes.filter { $0.channel == "iap_revoked" }
                #expect(revoked.count == 1)
                let payload = try #require(revoked.first).payload
                let object = try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: String]
                #expect(object == ["order_id": "o1", "user_id": "alice", "transaction_id": "8001"])
                let owed = try await f.row(
                    "SELECT transaction_id, order_id, revocation_reason, granted, revocation_percentage FROM iap.owed_revocations('alice')"
                )
                #expect(
                    owed["transaction_id"] == "8001" && owed["order_id"] == "o1"
                        && owed["revocation_reason"] == "refund_app_issue" && owed["granted"] == "t"
                        && owed["revocation_percentage"] == nil
                )
                #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "0")
                #expect(
                    try await f.value("SELECT count(*) FROM iap.revoked_transactions WHERE transaction_id = '8001'")
                        == "1"
                )
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8001'])") == "1")
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8001'])") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "0")

                let reversal = try await f.recordNotification("REFUND_REVERSED", transaction: Self.transaction("8001"))
                try await f.expectProcessed(reversal, "reinstated")
                let owedAgain = try await f.row("SELECT transaction_id, order_id FROM iap.owed_deliveries('alice')")
                #expect(owedAgain["transaction_id"] == "8001" && owedAgain["order_id"] == "o1")
                let ledger = try await f.row(
                    "SELECT revoked_at, revocation_reason, revocation_handled_at, granted_at FROM iap.deliveries WHERE transaction_id = '8001'"
                )
                #expect(
                    ledger["revoked_at"] == nil && ledger["revocation_reason"] == nil
                        && ledger["revocation_handled_at"] == nil && ledger["granted_at"] == nil
                )
                #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "verified")
                #expect(try await f.value("SELECT count(*) FROM iap.revoked_transactions") == "0")
                let verified = try await listener.withSession {
                    try $0.waitForNotifications(timeoutMilliseconds: 2_000)
                }
                #expect(verified.contains { $0.channel == "iap_verified" && $0.payload.contains("\"o1\"") })

                // A second reversal finds nothing to lift.
                let again = try await f.recordNotification("REFUND_REVERSED", transaction: Self.transaction("8001"))
                try await f.expectProcessed(again, "nothing_to_reinstate")
            }
            await listener.close()
        }
    }

    @Test func aRefundBeforeDeliveryKeepsEveryLaterInputFromDeliveringIt() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8101", reason: 0))
                try await f.expectProcessed(refund, "revoked_undelivered")
                let remembered = try await f.row(
                    "SELECT revocation_reason, notification_id FROM iap.revoked_transactions WHERE transaction_id = '8101'"
                )
                #expect(
                    remembered["revocation_reason"] == "refund_other" && remembered["notification_id"] == "\(refund)"
                )
                // The client's signed transaction says nothing of the refund; a receipt neither.
                try await f.enqueue("jws", transaction: f.standIn.testChain.signedTransaction(Self.transaction("8101")))
                try await f.enqueue("receipt", user: "bob", receipt: Receipts.paying("8101"))
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
            #expect(try await f.order("jws")["outcome"] != "full")
            #expect(try await f.order("receipt")["outcome"] != "full")
        }
    }

    @Test func aLedgerRowASettleWroteWhileItsRevocationWasRecordedIsRevokedByTheSweep() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                try await deliver(f, "8201", order: "race")
                // The settle read the revocations before this one committed (neither saw the other).
                try await f.connection.execute(
                    """
                    INSERT INTO iap.revoked_transactions (store, transaction_id, revoked_at, revocation_reason)
                    VALUES ('apple', '8201', now(), 'refund_other')
                    """
                )
                try await f.waitUntil {
                    try await f.value("SELECT revoked_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = '8201'")
                        == "t"
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "1")
        }
    }

    @Test func aProratedRefundRecordsItsPercentageAndARevokeIsFamilySharing() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                try await deliver(f, "8301", order: "p1")
                try await deliver(f, "8302", order: "p2")
                let prorated = try await f.recordNotification(
                    "REFUND",
                    transaction: Self.transaction("8301", reason: 0, type: "REFUND_PRORATED", percentage: 25_000)
                )
                let revoke = try await f.recordNotification(
                    "REVOKE",
                    transaction: Self.transaction("8302", reason: 0, type: "FAMILY_REVOKE")
                )
                try await f.expectProcessed(prorated, "revoked")
                try await f.expectProcessed(revoke, "revoked")
            }
            let rows = try await f.connection.execute(
                "SELECT transaction_id, revocation_reason, revocation_percentage, granted FROM iap.owed_revocations('alice')"
            ).namedRows
            #expect(rows.count == 2)
            let byID = Dictionary(uniqueKeysWithValues: try rows.map { (try $0.string("transaction_id"), $0) })
            #expect(byID["8301"]?["revocation_percentage"] == "25000")
            #expect(byID["8301"]?["revocation_reason"] == "refund_prorated")
            #expect(byID["8301"]?["granted"] == "f")
            #expect(byID["8302"]?["revocation_reason"] == "family_sharing")
            #expect(byID["8302"]?["revocation_percentage"] == nil)
        }
    }

    @Test func aRefundAndItsReversalApplyInApplesOrderWhateverOrderTheyArrive() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await deliver(f, "8401", order: "ordered") }
            let now = SignedTransactionPayload.nowMilliseconds()
            // The reversal arrives first (signed later); the refund is found afterwards.
            let reversal = try await f.recordNotification(
                "REFUND_REVERSED",
                transaction: Self.transaction("8401"),
                signedDate: now
            )
            let refund = try await f.recordNotification(
                "REFUND",
                transaction: Self.transaction("8401", reason: 0),
                signedDate: now - 60_000
            )
            try await f.withDaemons { _ in
                try await f.expectProcessed(refund, "revoked")
                try await f.expectProcessed(reversal, "reinstated")
            }
            #expect(try await f.value("SELECT revoked_at FROM iap.deliveries WHERE transaction_id = '8401'") == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "1")
        }
    }

    @Test func aNewNotificationWakesTheProcessorBeforeItsNextPoll() async throws {
        try await Fixture.with { f in
            var settings = f.settings()
            // Far longer than the wait below: only the NOTIFY of the insert can explain a prompt processing.
            settings.daemon.pollInterval = .seconds(300)
            try await f.withDaemons(settings: settings) { daemons in
                await daemons[0].waitUntilReady()
                // The processor's first pass, at start, found nothing; it now waits for the doorbell or the poll.
                try await Task.sleep(for: .milliseconds(500))
                let test = try await f.recordNotification("TEST", transaction: nil)
                #expect(try await f.processedResult(test, timeout: .seconds(20)) == ["recorded", nil])
            }
        }
    }

    @Test func otherTypesAreRecordedOrIgnoredAndAnUnreadablePayloadFails() async throws {
        try await Fixture.with { f in
            let declined = try await f.recordNotification("REFUND_DECLINED", transaction: Self.transaction("8501"))
            let test = try await f.recordNotification("TEST", transaction: nil)
            let renewed = try await f.recordNotification("DID_RENEW", transaction: Self.transaction("8502"))
            let summary = try await f.recordNotification(
                "RENEWAL_EXTENSION",
                subtype: "SUMMARY",
                transaction: nil,
                hasData: false
            )
            let unreadable = try await f.record(
                StoreNotification(
                    store: .apple,
                    notificationID: UUID().uuidString,
                    type: "REFUND",
                    transactionID: "8503",
                    source: .push,
                    payload: #"{"notification": {"data": {}}, "transaction": {"productId": "gems"}}"#
                )
            )
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(metrics: metrics) { _ in
                try await f.expectProcessed(declined, "recorded")
                try await f.expectProcessed(test, "recorded")
                try await f.expectProcessed(renewed, "ignored")
                try await f.expectProcessed(summary, "ignored")
                try await f.expectProcessed(unreadable, "failed", error: "payload.transaction has no transactionId")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.revoked_transactions") == "0")
            #expect(try await f.value("SELECT sum(attempts) FROM iap.store_notifications") == "5")
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            func counted(_ type: String, _ result: String) -> Bool {
                lines.contains {
                    $0.hasPrefix("receiptd_store_notifications_total{") && $0.contains("store=\"apple\"")
                        && $0.contains("type=\"\(type)\"") && $0.contains("result=\"\(result)\"") && $0.hasSuffix(" 1")
                }
            }
            #expect(counted("REFUND_DECLINED", "recorded") && counted("TEST", "recorded"))
            #expect(counted("DID_RENEW", "ignored") && counted("REFUND", "failed"))
        }
    }

    @Test func aConsumptionRequestIsQueuedOnlyWithTheUsersConsent() async throws {
        try await Fixture.with { f in
            let token = UUID()
            try await f.connection.execute("SELECT iap.set_consumption_consent('alice', true)")
            try await f.connection.execute("SELECT iap.set_consumption_consent('bob', false)")
            try await f.connection.execute(
                "SELECT iap.create_order('carol-order', 'carol', 'gems', app_account_token => $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute("SELECT iap.set_consumption_consent('carol', true)")
            try await f.withDaemons { _ in
                try await deliver(f, "8601", order: "a1")
                try await deliver(f, "8602", order: "b1", user: "bob")
                let signed = SignedTransactionPayload.nowMilliseconds()
                let consented = try await f.recordNotification(
                    "CONSUMPTION_REQUEST",
                    transaction: Self.transaction("8601"),
                    signedDate: signed
                )
                let refused = try await f.recordNotification(
                    "CONSUMPTION_REQUEST",
                    transaction: Self.transaction("8602")
                )
                let byToken = try await f.recordNotification(
                    "CONSUMPTION_REQUEST",
                    transaction: Self.transaction("8603", token: token)
                )
                let nobody = try await f.recordNotification(
                    "CONSUMPTION_REQUEST",
                    transaction: Self.transaction("8604")
                )
                try await f.expectProcessed(consented, "consumption_requested")
                try await f.expectProcessed(refused, "consumption_not_consented")
                try await f.expectProcessed(byToken, "consumption_requested")
                try await f.expectProcessed(nobody, "consumption_not_consented")
                let alice = try await f.row(
                    """
                    SELECT transaction_id, user_id,
                           -- The daemons' consumption sender may already have answered a pending request.
                           CASE state WHEN 'sent' THEN 'pending' ELSE state END AS state, environment,
                           (extract(epoch FROM requested_at) * 1000)::bigint AS requested_ms,
                           overdue_at - requested_at = interval '10 hours' AS ten_hours
                    FROM iap.consumption_requests WHERE notification_id = $1
                    """,
                    [consented]
                )
                #expect(
                    alice["transaction_id"] == "8601" && alice["user_id"] == "alice" && alice["state"] == "pending"
                        && alice["environment"] == "Production" && alice["ten_hours"] == "t"
                )
                #expect(abs((alice["requested_ms"].flatMap { Int64($0) } ?? 0) - signed) <= 1)
                let states = try await f.connection.execute(
                    """
                    SELECT notification_id, user_id, CASE state WHEN 'sent' THEN 'pending' ELSE state END AS state
                    FROM iap.consumption_requests ORDER BY notification_id
                    """
                ).namedRows.map { [$0["notification_id"], $0["user_id"], $0["state"]] }
                #expect(
                    states == [
                        ["\(consented)", "alice", "pending"], ["\(refused)", "bob", "not_consented"],
                        ["\(byToken)", "carol", "pending"], ["\(nobody)", nil, "not_consented"],
                    ]
                )
            }
        }
    }

    @Test func aOneTimeChargeSettlesTheMatchingOrderAndNoLaterInputDeliversItTwice() async throws {
        try await Fixture.with { f in
            let token = UUID()
            // Two open orders with the token: the older checkout is paid first. Another product's is not.
            try await f.connection.execute(
                "SELECT iap.create_order('older', 'alice', 'gems', app_account_token => $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute(
                "SELECT iap.create_order('newer', 'alice', 'gems', app_account_token => $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute(
                "SELECT iap.create_order('coins', 'alice', 'coins', app_account_token => $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute(
                "UPDATE iap.orders SET checkout_at = now() - interval '1 minute' WHERE order_id = 'older'"
            )
            let purchase = Self.transaction("8701", token: token)
            try await f.withDaemons { _ in
                let charge = try await f.recordNotification("ONE_TIME_CHARGE", transaction: purchase)
                try await f.expectProcessed(charge, "charge_enqueued")
                try await f.waitUntilSettled()
                let ledger = try await f.row("SELECT order_id, user_id, job_id FROM iap.deliveries")
                #expect(ledger["order_id"] == "older" && ledger["user_id"] == "alice")
                let job = try await f.row(
                    "SELECT kind, submitted_by FROM iap.jobs WHERE id = $1::bigint",
                    [ledger["job_id"]]
                )
                #expect(job["kind"] == "transaction" && job["submitted_by"] == "apple_notification")
                #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'older'") == "verified")

                // The client sends the same purchase later, for either order: nothing is delivered twice.
                try await f.enqueue(
                    "newer",
                    user: "alice",
                    transaction: f.standIn.testChain.signedTransaction(purchase),
                    appAccountToken: token
                )
                try await f.waitUntilSettled()
                // Apple sends the charge again under another notification: the ledger has it.
                let again = try await f.recordNotification("ONE_TIME_CHARGE", transaction: purchase)
                try await f.expectProcessed(again, "charge_already_delivered")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
            #expect(try await f.value("SELECT delivered_quantity FROM iap.orders WHERE order_id = 'newer'") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
        }
    }

    @Test func aOneTimeChargeNoOrderMatchesIsAnUnclaimedPaymentAnOperatorCanAssign() async throws {
        try await Fixture.with { f in
            let token = UUID()
            let purchase = Self.transaction("8801", token: token)
            let charge = try await f.recordNotification("ONE_TIME_CHARGE", transaction: purchase)
            try await f.withDaemons { _ in
                try await f.expectProcessed(charge, "charge_unclaimed")
            }
            let payment = try await f.row(
                """
                SELECT product_id, quantity, user_id, order_id, job_id, app_account_token::text AS token, notification_id,
                       environment
                FROM iap.unclaimed_payments WHERE transaction_id = '8801'
                """
            )
            #expect(
                payment["product_id"] == "gems" && payment["quantity"] == "1" && payment["user_id"] == nil
                    && payment["order_id"] == nil && payment["job_id"] == nil
                    && payment["token"] == token.uuidString.lowercased() && payment["notification_id"] == "\(charge)"
                    && payment["environment"] == "Production"
            )
            let operatorQueries = OperatorQueries(connection: f.connection)
            let listed = try await operatorQueries.unclaimed(since: nil, includeAssigned: false)
            #expect(listed.map(\.transactionID) == ["8801"])
            #expect(listed.first?.userID == nil && listed.first?.appAccountToken == token.uuidString.lowercased())
            #expect(try await operatorQueries.status().unclaimedPayments == 1)

            try await f.connection.execute("SELECT iap.create_order('support', 'dave', 'gems')")
            let assigned = try await operatorQueries.assign(transactionID: "8801", to: "support")
            #expect(assigned.outcome == "full")
            #expect(try await f.value("SELECT user_id FROM iap.deliveries WHERE transaction_id = '8801'") == "dave")

            // The client's purchase arrives after all: delivered once, already.
            try await f.withDaemons { _ in
                try await f.enqueue(
                    "late",
                    user: "erin",
                    transaction: f.standIn.testChain.signedTransaction(purchase),
                    appAccountToken: token
                )
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
        }
    }

    @Test func aRefundedUnclaimedPaymentCannotBeAssigned() async throws {
        try await Fixture.with { f in
            let purchase = Self.transaction("8851", token: UUID())
            let charge = try await f.recordNotification("ONE_TIME_CHARGE", transaction: purchase)
            try await f.withDaemons { _ in
                try await f.expectProcessed(charge, "charge_unclaimed")
                let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8851", reason: 0))
                try await f.expectProcessed(refund, "revoked_undelivered")
            }
            try await f.connection.execute("SELECT iap.create_order('support', 'dave', 'gems')")
            await #expect(throws: OperatorError.self) {
                try await OperatorQueries(connection: f.connection).assign(transactionID: "8851", to: "support")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func aNotificationHeldByAProcessorThatDiesIsProcessedExactlyOnceAfterwards() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await deliver(f, "8901", order: "held") }
            let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8901", reason: 0))
            // A processor that claimed the notification and revoked the row, then died before committing.
            let dying = try await f.database.connect()
            try await dying.execute("BEGIN")
            try await dying.execute("SELECT id FROM iap.store_notifications WHERE id = $1 FOR UPDATE", [refund])
            try await dying.execute(
                "UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund_other' WHERE transaction_id = '8901'"
            )
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await f.withDaemons { _ in
                // Several passes go by: the held notification is skipped, not waited for.
                try await Task.sleep(for: .milliseconds(500))
                #expect(
                    try await f.value(
                        "SELECT processed_at IS NULL FROM iap.store_notifications WHERE id = $1",
                        [refund]
                    )
                        == "t"
                )
                await dying.close()
                try await f.expectProcessed(refund, "revoked")
            }
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
            await listener.close()
            #expect(notes.filter { $0.channel == "iap_revoked" }.count == 1)
            #expect(try await f.value("SELECT attempts FROM iap.store_notifications WHERE id = $1", [refund]) == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "1")
        }
    }

    @Test func aLedgerRowAGameHoldsPutsTheRefundOffUntilItIsFree() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await deliver(f, "8951", order: "locked") }
            let game = try await f.database.connect()
            try await game.execute("BEGIN")
            try await game.execute("SELECT * FROM iap.deliveries WHERE transaction_id = '8951' FOR UPDATE")
            let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8951", reason: 0))
            try await f.withDaemons { _ in
                try await f.waitUntil {
                    try await f.value("SELECT attempts > 0 FROM iap.store_notifications WHERE id = $1", [refund]) == "t"
                }
                let row = try await f.row(
                    "SELECT processed_at, error FROM iap.store_notifications WHERE id = $1",
                    [refund]
                )
                #expect(row["processed_at"] == nil && row["error"]?.contains("55P03") == true)
                try await game.execute("COMMIT")
                try await f.expectProcessed(refund, "revoked")
            }
            await game.close()
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "1")
        }
    }

    @Test func theWorkerRoleProcessesEveryType() async throws {
        try await Fixture.with { f in
            let worker = try await f.loginRole(in: "receiptd_worker")
            let settings = f.settings { $0.databaseURL = worker }
            let token = UUID()
            try await f.connection.execute(
                "SELECT iap.create_order('charged', 'alice', 'gems', app_account_token => $1::uuid)",
                [token.uuidString]
            )
            try await f.connection.execute("SELECT iap.set_consumption_consent('alice', true)")
            try await f.withDaemons(settings: settings) { _ in
                try await deliver(f, "8961", order: "w1")
                #expect(try await f.value("SELECT iap.mark_granted('w1')") == "1")
                let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8961", reason: 0))
                try await f.expectProcessed(refund, "revoked")
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8961'])") == "1")
                let reversal = try await f.recordNotification("REFUND_REVERSED", transaction: Self.transaction("8961"))
                try await f.expectProcessed(reversal, "reinstated")
                let early = try await f.recordNotification("REFUND", transaction: Self.transaction("8962", reason: 1))
                try await f.expectProcessed(early, "revoked_undelivered")
                let consumption = try await f.recordNotification(
                    "CONSUMPTION_REQUEST",
                    transaction: Self.transaction("8961")
                )
                try await f.expectProcessed(consumption, "consumption_requested")
                let matched = try await f.recordNotification(
                    "ONE_TIME_CHARGE",
                    transaction: Self.transaction("8963", token: token)
                )
                try await f.expectProcessed(matched, "charge_enqueued")
                let unmatched = try await f.recordNotification("ONE_TIME_CHARGE", transaction: Self.transaction("8964"))
                try await f.expectProcessed(unmatched, "charge_unclaimed")
                try await f.waitUntilSettled()
                try await f.connection.execute(
                    """
                    INSERT INTO iap.revoked_transactions (store, transaction_id, revoked_at, revocation_reason)
                    VALUES ('apple', '8963', now(), 'refund_other')
                    """
                )
                try await f.waitUntil {
                    try await f.value("SELECT revoked_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = '8963'")
                        == "t"
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "1")
            #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'charged'") == "full")
        }
    }

    /// Every daemon runs the claim every poll interval: it reads the unprocessed rows' partial indexes only, not
    /// the table of every notification ever accepted.
    @Test func theClaimReadsOnlyTheUnprocessedIndex() async throws {
        try await Fixture.with { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, source,
                                                     payload, processed_at, result)
                SELECT 'apple', 'n' || g, 'TEST', g::text, 'push', '{}', now(), 'recorded' FROM generate_series(1, 3000) g
                """
            )
            for id in ["u1", "u2"] {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, source, payload)
                    VALUES ('apple', $1, 'TEST', $1, 'push', '{}')
                    """,
                    [id]
                )
            }
            try await f.connection.execute("ANALYZE iap.store_notifications")
            // As the daemon's pool sets it.
            try await f.connection.execute("SET enable_seqscan = off")
            let plan = try await f.connection.execute(
                "EXPLAIN " + PostgresJobQueue.notificationSQL.claim.replacingOccurrences(of: "$1", with: "32")
            ).rows.compactMap { $0[0] }.joined(separator: "\n")
            #expect(plan.contains("store_notifications_claim"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
        }
    }

    /// `receiptd run` SIGKILLed while its processing transaction waits on a ledger row a game holds: nothing of
    /// that transaction stays, and the next daemon applies the refund once (one NOTIFY iap_revoked).
    @Test func aDaemonKilledWhileProcessingLeavesTheNotificationToBeProcessedOnce() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in try await deliver(f, "8981", order: "killed") }
            let game = try await f.database.connect()
            try await game.execute("BEGIN")
            try await game.execute("SELECT * FROM iap.deliveries WHERE transaction_id = '8981' FOR UPDATE")
            let refund = try await f.recordNotification("REFUND", transaction: Self.transaction("8981", reason: 0))
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")

            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": f.database.connectionString, "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
                "APPLE_SHARED_SECRET": Fixture.sharedSecret, "RECEIPTD_METRICS_ADDR": "",
                "RECEIPTD_POLL_INTERVAL": "0.1", "RECEIPTD_BACKOFF_BASE": "0.05", "RECEIPTD_BACKOFF_MAX": "0.1",
                "RECEIPTD_SHUTDOWN_GRACE": "1",
            ]) { $1 }
            let process = try ReceiptdBinary.startDaemon(environment: environment)
            // Its refund statement waits for the game's row lock: kill the daemon right there.
            try await f.waitUntil {
                try await f.value(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO iap.revoked_transactions%'
                    """
                ) == "1"
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            try await game.execute("COMMIT")
            await game.close()
            #expect(
                try await f.value("SELECT processed_at IS NULL FROM iap.store_notifications WHERE id = $1", [refund])
                    == "t"
            )
            try await f.withDaemons { _ in try await f.expectProcessed(refund, "revoked") }
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
            await listener.close()
            #expect(notes.filter { $0.channel == "iap_revoked" }.count == 1)
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "1")
        }
    }

    @Test func aGoogleVoidedPurchaseIsHandedToTheGameAsARevocation() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.900")
            try await f.enqueue("voided", user: "gina", googleToken: token)
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            var hourly = settings
            hourly.googlePlay.voidedInterval = .seconds(3600)
            try await f.withDaemons(settings: hourly) { daemons in
                try await f.waitUntilSettled()
                let poller = try #require(daemons[0].companions.compactMap { $0 as? GoogleVoidedPoller }.first)
                google.void(token: token.encoded(), orderID: "GPA.900", reason: 1)
                #expect(try await poller.pollOnce() == 1)
            }
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
            await listener.close()
            let revoked = try #require(notes.first { $0.channel == "iap_revoked" })
            #expect(revoked.payload.contains("\"voided\"") && revoked.payload.contains("\"gina\""))
            let owed = try await f.row("SELECT order_id, revocation_reason, granted FROM iap.owed_revocations('gina')")
            #expect(owed["order_id"] == "voided" && owed["revocation_reason"] == "remorse" && owed["granted"] == "f")
        }
    }
}
