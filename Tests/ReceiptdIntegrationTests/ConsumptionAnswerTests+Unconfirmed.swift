import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

/// A store slower than the timeout (issue #47, item 6): a Send Consumption Information call that gets no answer may
/// have reached Apple, so it earns one more call and no other. When that call is not confirmed either, the request
/// ends `unconfirmed`.
extension ConsumptionAnswerTests {
    /// Daemon settings whose Apple calls give up after a second.
    private static func impatient(_ f: Fixture) -> ReceiptdSettings {
        f.settings { $0.apple.requestTimeout = .seconds(1) }
    }

    private static func state(_ f: Fixture, _ transactionID: String) async throws -> String? {
        try await f.value("SELECT state FROM iap.refund_requests WHERE transaction_id = $1", [transactionID])
    }

    @Test func anAnswerTooSlowTwiceIsSentTwiceAndEndsUnconfirmed() async throws {
        try await Fixture.with { f in
            // Apple takes both (202), each two seconds after the daemon gave up.
            f.standIn.scriptConsumption([ScriptStep(delayMilliseconds: 2000), ScriptStep(delayMilliseconds: 2000)])
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(settings: Self.impatient(f), metrics: metrics) { _ in
                try await Self.request(f, "9701", user: "u1")
                try await f.waitUntil(timeout: .seconds(20)) { try await Self.state(f, "9701") == "unconfirmed" }
                // Nothing more is sent, however long the daemon runs.
                try await Task.sleep(for: .seconds(3))
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.transactionID) == ["9701", "9701"])
            let row = try await f.row(
                """
                SELECT state, attempts, possibly_sent_at IS NOT NULL AS possibly_sent, last_error, sent_at
                FROM iap.refund_requests WHERE transaction_id = '9701'
                """
            )
            #expect(row["state"] == "unconfirmed" && row["attempts"] == "2" && row["possibly_sent"] == "t")
            #expect(row["sent_at"] == nil && row["last_error"]?.contains("no answer") == true)
            Self.expectAppleAnswerCalls(in: registry, [("retry", 1), ("unconfirmed", 1)])
            // Operators see it (`receiptd refunds --state unconfirmed`).
            let listed = try await OperatorQueries(connection: f.connection).refundRequests(state: .unconfirmed)
            #expect(listed.map(\.transactionID) == ["9701"])
        }
    }

    @Test func theOneMoreCallAfterATimeoutAnswersTheRequest() async throws {
        try await Fixture.with { f in
            f.standIn.scriptConsumption([ScriptStep(delayMilliseconds: 2000)])
            try await f.withDaemons(settings: Self.impatient(f)) { _ in
                try await Self.request(f, "9702", user: "u1")
                try await f.waitUntil(timeout: .seconds(20)) { try await Self.state(f, "9702") == "answered" }
            }
            #expect(f.standIn.recordedConsumptionRequests().count == 2)
        }
    }

    @Test func aFailureAfterATimeoutEndsUnconfirmedRatherThanCallingAThirdTime() async throws {
        try await Fixture.with { f in
            f.standIn.scriptConsumption([ScriptStep(reset: true), ScriptStep(http: 503)])
            try await f.withDaemons(settings: Self.impatient(f)) { _ in
                try await Self.request(f, "9703", user: "u1")
                try await f.waitUntil(timeout: .seconds(20)) { try await Self.state(f, "9703") == "unconfirmed" }
                try await Task.sleep(for: .seconds(1))
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.httpStatus) == [0, 503])
        }
    }

    @Test func aTransientFailureAloneIsStillRetriedUntilTaken() async throws {
        try await Fixture.with { f in
            f.standIn.scriptConsumption([ScriptStep(http: 503), ScriptStep(http: 503), ScriptStep(http: 503)])
            try await f.withDaemons(settings: Self.impatient(f)) { _ in
                try await Self.request(f, "9704", user: "u1")
                try await f.waitUntil(timeout: .seconds(20)) { try await Self.state(f, "9704") == "answered" }
            }
            #expect(f.standIn.recordedConsumptionRequests().map(\.httpStatus) == [503, 503, 503, 202])
        }
    }
}
