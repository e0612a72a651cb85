import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// Send Consumption Information v2 for Apple's CONSUMPTION_REQUESTs, through the stand-in: what is sent for a
/// delivered and granted purchase and for one that is not, the refund preference, consent, retries, a refusal for
/// good, and an answer still owed after 10 hours in `iap.stuck_jobs`.
@Suite struct ConsumptionAnswerTests {
    /// Delivers `transactionID` to `user` through the ledger (a signed transaction the daemon verifies), and has the
    /// game grant it when `granted`. Runs inside `withDaemons`.
    private func deliver(
        _ f: Fixture,
        _ transactionID: String,
        user: String,
        granted: Bool,
        environment: String = "Production"
    ) async throws {
        let jws = f.standIn.testChain.signedTransaction(
            SignedTransactionPayload(transactionId: transactionID, productId: "gems", environment: environment)
        )
        try await f.enqueue("order-\(transactionID)", user: user, transaction: jws)
        try await f.waitUntilSettled()
        #expect(try await f.order("order-\(transactionID)")["outcome"] == "full")
        if granted {
            try await f.connection.execute(
                "SELECT iap.mark_granted($1, ARRAY[$2])",
                ["order-\(transactionID)", transactionID]
            )
        }
    }

    /// A CONSUMPTION_REQUEST as the processor leaves it: a processed notification and its request row, signed
    /// `hoursAgo` hours ago and received an hour before now, so that the game's time (an hour) is over and the
    /// policy answers it; `not_consented` is answered at once without anything to send. Returns the row's id.
    @discardableResult
    static func request(
        _ f: Fixture,
        _ transactionID: String,
        user: String?,
        state: String = "pending",
        environment: String = "Production",
        hoursAgo: Double = 0
    ) async throws -> String {
        try #require(
            try await f.value(
                """
                WITH n AS (
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                        environment, signed_at, source, payload, processed_at, result)
                    VALUES ('apple', gen_random_uuid()::text, 'CONSUMPTION_REQUEST', $1, $2,
                            now() - make_interval(secs => $4::float8 * 3600), 'push', '{}', now(),
                            CASE WHEN $5::text = 'pending' THEN 'consumption_requested' ELSE 'consumption_not_consented' END)
                    RETURNING id, notification_id, signed_at
                )
                INSERT INTO iap.refund_requests (notification_id, request_id, transaction_id, environment, user_id,
                    signed_at, received_at, answer_by, state, answered_by, answered_at, last_error)
                SELECT id, notification_id, $1::text, $2::text, $3::text, signed_at, now() - interval '61 minutes',
                       signed_at + interval '12 hours',
                       CASE WHEN $5::text = 'pending' THEN 'waiting' ELSE 'answered' END,
                       CASE WHEN $5::text = 'pending' THEN NULL ELSE 'policy' END,
                       CASE WHEN $5::text = 'pending' THEN NULL ELSE now() END,
                       CASE WHEN $5::text = 'pending' THEN NULL ELSE 'no consent' END
                FROM n
                RETURNING notification_id
                """,
                [transactionID, environment, user, hoursAgo, state]
            )
        )
    }

    /// Expects `receiptd_refund_answer_calls_total{store="apple"}` to have counted each result as many times.
    static func expectAppleAnswerCalls(in registry: PrometheusCollectorRegistry, _ counts: [(String, Int)]) {
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        for (result, count) in counts {
            #expect(
                lines.contains {
                    $0.hasPrefix("receiptd_refund_answer_calls_total") && $0.contains("result=\"\(result)\"")
                        && $0.contains("store=\"apple\"") && $0.hasSuffix(" \(count)")
                },
                "\(lines)"
            )
        }
    }

    private func requestRow(_ f: Fixture, _ transactionID: String) async throws -> QueryResult.Row {
        try await f.row(
            """
            SELECT state, attempts, delivery_status, request_body::text AS body, sent_at IS NOT NULL AS sent,
                   last_error
            FROM iap.consumption_requests WHERE transaction_id = $1
            """,
            [transactionID]
        )
    }

    private func waitForState(_ f: Fixture, _ transactionID: String, _ state: String) async throws {
        try await f.waitUntil {
            try await f.value("SELECT state FROM iap.consumption_requests WHERE transaction_id = $1", [transactionID])
                == state
        }
    }

    @Test func aDeliveredAndGrantedPurchaseIsAnsweredDelivered() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                try await deliver(f, "9001", user: "u1", granted: true)
                try await Self.request(f, "9001", user: "u1")
                try await waitForState(f, "9001", "sent")
            }
            let sent = try #require(f.standIn.recordedConsumptionRequests().only)
            #expect(sent.transactionID == "9001" && sent.environment == .production && sent.httpStatus == 202)
            #expect(sent.bearerFailure == nil)
            let fields = sent.fields
            // Every field: consumptionPercentage goes only with an undelivered purchase, refundPreference only when
            // the operator chose one.
            #expect(Set(fields.keys) == ["customerConsented", "deliveryStatus", "sampleContentProvided"])
            #expect(fields["customerConsented"] as? Bool == true)
            #expect(fields["deliveryStatus"] as? String == "DELIVERED")
            #expect(fields["sampleContentProvided"] as? Bool == false)
            let row = try await requestRow(f, "9001")
            #expect(row["state"] == "sent" && row["attempts"] == "1" && row["sent"] == "t")
            #expect(row["delivery_status"] == "DELIVERED" && row["last_error"] == nil)
            let stored = try JSONSerialization.jsonObject(with: Data(try #require(row["body"]).utf8)) as? [String: Any]
            #expect(stored?["deliveryStatus"] as? String == "DELIVERED" && stored?.count == 3)
        }
    }

    @Test func anUngrantedOrUndeliveredPurchaseIsUndeliveredAndGrantedWhateverThePreference() async throws {
        try await Fixture.with { f in
            try await f.withDaemons(settings: f.settings { $0.daemon.refunds.preference = .decline }) { _ in
                try await deliver(f, "9101", user: "u1", granted: false)
                try await Self.request(f, "9101", user: "u1")
                // Not in the ledger at all, and from the sandbox.
                try await Self.request(f, "9102", user: "u2", environment: "Sandbox")
                try await waitForState(f, "9101", "sent")
                try await waitForState(f, "9102", "sent")
            }
            let requests = f.standIn.recordedConsumptionRequests()
            #expect(requests.count == 2)
            for transaction in ["9101", "9102"] {
                let sent = try #require(requests.first { $0.transactionID == transaction })
                let fields = sent.fields
                #expect(
                    Set(fields.keys) == [
                        "customerConsented", "deliveryStatus", "sampleContentProvided", "consumptionPercentage",
                        "refundPreference",
                    ]
                )
                #expect(fields["customerConsented"] as? Bool == true)
                #expect(fields["deliveryStatus"] as? String == "UNDELIVERED_OTHER")
                #expect((fields["consumptionPercentage"] as? NSNumber)?.intValue == 0)
                #expect(fields["sampleContentProvided"] as? Bool == false)
                // The player got nothing: the policy grants, whatever the operator prefers for goods given.
                #expect(fields["refundPreference"] as? String == "GRANT_FULL")
                #expect(try await requestRow(f, transaction)["delivery_status"] == "UNDELIVERED_OTHER")
            }
            #expect(requests.first { $0.transactionID == "9102" }?.environment == .sandbox)
            #expect(requests.first { $0.transactionID == "9101" }?.environment == .production)
        }
    }

    @Test func grantFullIsSentAsGrantFull() async throws {
        try await Fixture.with { f in
            try await f.withDaemons(settings: f.settings { $0.daemon.refunds.preference = .grantFull }) { _ in
                try await deliver(f, "9151", user: "u1", granted: true)
                try await Self.request(f, "9151", user: "u1")
                try await waitForState(f, "9151", "sent")
            }
            let fields = try #require(f.standIn.recordedConsumptionRequests().only).fields
            #expect(
                fields["refundPreference"] as? String == "GRANT_FULL"
                    && fields["deliveryStatus"] as? String == "DELIVERED"
            )
            #expect(fields["consumptionPercentage"] == nil)
        }
    }

    @Test func aRequestWithoutConsentIsNeverSent() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { _ in
                try await Self.request(f, "9201", user: "u1", state: "not_consented")
                try await Self.request(f, "9202", user: nil, state: "not_consented")
                // Sent after the others were there: once it is, the sender has looked at them too.
                try await Self.request(f, "9203", user: "u3")
                try await waitForState(f, "9203", "sent")
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.transactionID) == ["9203"])
            for transaction in ["9201", "9202"] {
                let row = try await requestRow(f, transaction)
                #expect(row["state"] == "not_consented" && row["attempts"] == "0" && row["body"] == nil)
            }
        }
    }

    @Test func twoDaemonsSendEachAnswerOnce() async throws {
        try await Fixture.with { f in
            let ids = (0..<12).map { "96\($0 + 10)" }
            for id in ids { try await Self.request(f, id, user: "u\(id)") }
            try await f.withDaemons(count: 2) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.consumption_requests WHERE state = 'sent'") == "12"
                }
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.transactionID).sorted() == ids)
        }
    }

    @Test func transientFailuresAreRetriedUntilAppleAccepts() async throws {
        try await Fixture.with { f in
            f.standIn.scriptConsumption([ScriptStep(http: 500), ScriptStep(http: 500)])
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(metrics: metrics) { _ in
                try await Self.request(f, "9301", user: "u1")
                try await waitForState(f, "9301", "sent")
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.httpStatus) == [500, 500, 202])
            let row = try await requestRow(f, "9301")
            #expect(row["state"] == "sent" && row["attempts"] == "3" && row["last_error"] == nil)
            Self.expectAppleAnswerCalls(in: registry, [("retry", 2), ("sent", 1)])
        }
    }

    @Test func aRefusalForGoodFailsTheRequest() async throws {
        try await Fixture.with { f in
            f.standIn.scriptConsumption([ScriptStep(http: 400, errorCode: 4_000_000)])
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await Self.request(f, "9401", user: "u1")
                try await waitForState(f, "9401", "failed")
            }
            let row = try await requestRow(f, "9401")
            #expect(row["attempts"] == "1" && row["last_error"]?.contains("4000000") == true && row["sent"] == "f")
            #expect(f.standIn.recordedConsumptionRequests().count == 1)
            #expect(lines.all.contains { $0.hasPrefix("error ") && $0.contains("refused the refund answer") })
        }
    }

    @Test func anAnswerStillOwedAnHourBeforeItsDeadlineIsAStuckJob() async throws {
        try await Fixture.with { f in
            // No daemon runs: nothing is sent.
            let jws = f.standIn.testChain.signedTransaction(
                SignedTransactionPayload(transactionId: "9501", productId: "gems")
            )
            try await f.enqueue("order-9501", transaction: jws)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            try await Self.request(f, "9501", user: "u1", hoursAgo: 11.5)
            try await Self.request(f, "9502", user: "u1", hoursAgo: 9)
            try await Self.request(f, "9503", user: nil, state: "not_consented", hoursAgo: 11.5)
            try await f.connection.execute(
                "UPDATE iap.refund_requests SET last_error = 'HTTP 500' WHERE transaction_id = '9501'"
            )
            let row = try await f.row(
                "SELECT job_id, order_id, state, stuck_seconds, last_error FROM iap.stuck_jobs WHERE reason = 'refund_answer_late'"
            )
            #expect(row["job_id"] == nil && row["order_id"] == "order-9501" && row["state"] == nil)
            #expect((row["stuck_seconds"].flatMap(Int.init) ?? 0) >= 3600 - 5 && row["last_error"] == "HTTP 500")
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "1")
            // Once answered it is no longer stuck.
            try await f.connection.execute(
                """
                UPDATE iap.refund_requests SET state = 'answered', answered_by = 'policy', preference = 'none'
                WHERE transaction_id = '9501'
                """
            )
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
