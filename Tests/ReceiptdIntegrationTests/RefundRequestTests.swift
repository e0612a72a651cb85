import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// Refund requests answered with the game's facts (`iap.refund_requests`): Apple's CONSUMPTION_REQUEST asks the
/// game first (NOTIFY and the row), the game answers with `iap.answer_refund_request` or reports consumption
/// beforehand, the policy answers when it is silent, and a request reaching its deadline expires.
@Suite struct RefundRequestTests {
    /// A purchase delivered to `user` and granted by the game.
    private func deliver(
        _ f: Fixture,
        _ transactionID: String,
        user: String = "u1",
        product: String = "gems",
        type: String = "Consumable"
    ) async throws {
        let jws = f.standIn.testChain.signedTransaction(
            SignedTransactionPayload(
                transactionId: transactionID,
                productId: product,
                type: type,
                environment: "Production"
            )
        )
        try await f.enqueue("order-\(transactionID)", user: user, product: product, transaction: jws)
        try await f.waitUntilSettled()
        try await f.connection.execute(
            "SELECT iap.mark_granted($1, ARRAY[$2])",
            ["order-\(transactionID)", transactionID]
        )
    }

    private func sqlState(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? PostgresError)?.sqlState
        }
    }

    @Test func theGameIsAskedAndItsAnswerIsSentOnce() async throws {
        try await Fixture.with { f in
            let listener = try await PostgresConnection.connect(f.database.connectionString)
            try await listener.execute("LISTEN iap_refund_requested")
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', true)")
            try await f.withDaemons { _ in
                try await deliver(f, "8101")
                let id = try await f.askRefund("8101", user: "u1")
                let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
                let note = try #require(notes.first { $0.channel == "iap_refund_requested" })
                let payload = try #require(
                    try JSONSerialization.jsonObject(with: Data(note.payload.utf8)) as? [String: Any]
                )
                #expect(payload["request_id"] as? String == id && payload["transaction_id"] as? String == "8101")
                #expect(payload["user_id"] as? String == "u1" && payload["answer_by"] is String)
                // The game answers as its role: half the gems were spent.
                let game = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
                try await game.execute(
                    "SELECT iap.answer_refund_request($1, 50000, 'grant_prorated')",
                    [id]
                )
                // Answered already: 55000; the row is the game's.
                #expect(
                    await sqlState {
                        try await game.execute("SELECT iap.answer_refund_request($1, 0, 'decline')", [id])
                    } == "55000"
                )
                await game.close()
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.refund_requests WHERE request_id = $1", [id]) == "answered"
                }
            }
            await listener.close()
            let sent = try #require(f.standIn.recordedConsumptionRequests().first)
            #expect(f.standIn.recordedConsumptionRequests().count == 1)
            #expect(sent.fields["refundPreference"] as? String == "GRANT_PRORATED")
            #expect((sent.fields["consumptionPercentage"] as? NSNumber)?.intValue == 50_000)
            #expect(sent.fields["deliveryStatus"] as? String == "DELIVERED")
            let row = try await f.row(
                "SELECT answered_by, preference, consumed_milliunits, reason, order_id FROM iap.refund_requests"
            )
            #expect(row["answered_by"] == "game" && row["preference"] == "grant_prorated")
            #expect(row["consumed_milliunits"] == "50000" && row["reason"] == "UNINTENDED_PURCHASE")
        }
    }

    @Test func badAnswersAreRefusedAndChangeNothing() async throws {
        try await Fixture.with { f in
            let id = try await f.askRefund("8201", user: "u1")
            for (consumed, preference, state) in [
                (0, "maybe", "22023"), (100_001, "decline", "22023"), (-1, "none", "22023"),
                (0, "grant_prorated", "22023"), (100_000, "grant_prorated", "22023"),
            ] {
                #expect(
                    await sqlState {
                        try await f.connection.execute(
                            "SELECT iap.answer_refund_request($1, $2, $3)",
                            [id, consumed, preference]
                        )
                    } == state,
                    "\(consumed) \(preference)"
                )
            }
            #expect(
                await sqlState {
                    try await f.connection.execute("SELECT iap.answer_refund_request('nope', 0, 'none')")
                } == "P0002"
            )
            #expect(try await f.value("SELECT state FROM iap.refund_requests") == "waiting")
            #expect(
                await sqlState {
                    try await f.connection.execute("SELECT iap.report_consumption('8201', 100001)")
                } == "22023"
            )
            // Past its deadline, a request cannot be answered either.
            try await f.connection.execute("UPDATE iap.refund_requests SET answer_by = now() - interval '1 second'")
            #expect(
                await sqlState {
                    try await f.connection.execute("SELECT iap.answer_refund_request($1, 0, 'none')", [id])
                } == "55000"
            )
        }
    }

    @Test func aSilentGameIsAnsweredByThePolicyWithWhatItReported() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', true)")
            let settings = f.settings {
                $0.daemon.refunds.preference = .auto
                $0.daemon.refunds.gameWait = .seconds(1)
            }
            try await f.withDaemons(settings: settings) { _ in
                try await deliver(f, "8301")
                try await deliver(f, "8302")
                // Reported before any request: most of 8301 was spent; the latest report wins.
                try await f.connection.execute("SELECT iap.report_consumption('8301', 10000)")
                try await f.connection.execute("SELECT iap.report_consumption('8301', 80000)")
                try await f.askRefund("8301", user: "u1")
                try await f.askRefund("8302", user: "u1")
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.refund_requests WHERE state = 'answered'") == "2"
                }
            }
            let rows = try await f.connection.execute(
                "SELECT transaction_id, answered_by, preference, consumed_milliunits FROM iap.refund_requests ORDER BY 1"
            ).namedRows
            #expect(rows.map { $0["answered_by"] } == ["policy", "policy"])
            #expect(rows.map { $0["preference"] } == ["decline", "none"])
            #expect(rows.map { $0["consumed_milliunits"] } == ["80000", nil])
            let sent = f.standIn.recordedConsumptionRequests()
            #expect(sent.first { $0.transactionID == "8301" }?.fields["refundPreference"] as? String == "DECLINE")
            #expect(sent.first { $0.transactionID == "8302" }?.fields["refundPreference"] == nil)
        }
    }

    /// Apple prorates no auto-renewable: the policy's prorated answer goes as `GRANT_FULL`, without a consumption.
    @Test func aPartlyConsumedAutoRenewableIsSentGrantFull() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', true)")
            let settings = f.settings {
                $0.daemon.refunds.preference = .auto
                $0.daemon.refunds.gameWait = .seconds(1)
            }
            try await f.withDaemons(settings: settings) { _ in
                try await deliver(f, "8351", product: "pass", type: "Auto-Renewable Subscription")
                try await f.connection.execute("SELECT iap.report_consumption('8351', 30000)")
                try await f.askRefund("8351", user: "u1")
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.refund_requests") == "answered"
                }
            }
            #expect(try await f.value("SELECT preference FROM iap.refund_requests") == "grant_prorated")
            let sent = try #require(f.standIn.recordedConsumptionRequests().first)
            #expect(sent.fields["refundPreference"] as? String == "GRANT_FULL")
            #expect(
                sent.fields["consumptionPercentage"] == nil && sent.fields["deliveryStatus"] as? String == "DELIVERED"
            )
        }
    }

    @Test func aRequestReachingItsDeadlineExpiresWithAnErrorLine() async throws {
        try await Fixture.with { f in
            let id = try await f.askRefund("8401", user: "u1")
            try await f.connection.execute(
                "UPDATE iap.refund_requests SET answer_by = now() + interval '30 minutes'"
            )
            #expect(try await f.value("SELECT reason FROM iap.stuck_jobs") == "refund_answer_late")
            try await f.connection.execute("UPDATE iap.refund_requests SET answer_by = now() - interval '1 second'")
            let lines = CapturingLogHandler.Lines()
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(logger: CapturingLogHandler.logger(into: lines), metrics: metrics) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.refund_requests WHERE request_id = $1", [id]) == "expired"
                }
            }
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let emitted = String(decoding: bytes, as: UTF8.self)
            #expect(emitted.contains("receiptd_refund_requests_expired_total{store=\"apple\"} 1"), "\(emitted)")
            #expect(
                lines.all.contains { $0.hasPrefix("error ") && $0.contains("deadline unanswered") && $0.contains(id) }
            )
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            #expect(f.standIn.recordedConsumptionRequests().isEmpty)
        }
    }

    /// The daemons poll these every interval: each must follow a partial index under the daemon's
    /// `enable_seqscan = off`, or it would be planned as a disabled scan and compiled with LLVM every second.
    @Test func theDaemonsRefundStatementsFollowTheirIndexes() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SET enable_seqscan = off")
            for (name, sql, index) in [
                ("expire", PostgresJobQueue.refundSQL.expire, "refund_requests_open"),
                (
                    "waiting",
                    PostgresJobQueue.refundSQL.waiting.replacingOccurrences(of: "$1", with: "60")
                        .replacingOccurrences(of: "$2", with: "20"), "refund_requests_"
                ),
                (
                    "claim",
                    PostgresJobQueue.refundSQL.claim.replacingOccurrences(of: "$1", with: "'daemon'")
                        .replacingOccurrences(of: "$2", with: "20").replacingOccurrences(of: "$3", with: "60")
                        .replacingOccurrences(of: "$4", with: "'google'"),
                    "refund_requests_answering"
                ),
            ] {
                let plan = try await f.connection.execute("EXPLAIN " + sql).rows.compactMap { $0[0] }
                    .joined(separator: "\n")
                #expect(plan.contains(index) && !plan.contains("Seq Scan"), "\(name): \(plan)")
            }
        }
    }
}
