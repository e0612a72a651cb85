import FakeAppStore
import Foundation
import Prometheus
import ReceiptdCore
import Testing

@Suite struct DaemonMetricsTests {
    @Test func theDaemonCountsWhatItDoes() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("7001", script: [.httpStatus(503)]))
            try await f.enqueue("o2", user: "u2", receipt: SyntheticReceipt(status: 21003).encoded())
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            try await f.withDaemons(metrics: metrics) { _ in try await f.waitUntilSettled() }
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            func value(_ prefix: String) -> Double? {
                lines.first { $0.hasPrefix(prefix) }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            #expect(value("receiptd_jobs_claimed_total") == 3, "\(text)")
            #expect(
                lines.contains {
                    $0.hasPrefix("receiptd_jobs_finished_total") && $0.contains("outcome=\"full\"")
                        && $0.hasSuffix(" 1")
                }
            )
            #expect(
                lines.contains {
                    $0.hasPrefix("receiptd_jobs_finished_total") && $0.contains("outcome=\"invalid\"")
                        && $0.hasSuffix(" 1")
                }
            )
            #expect(
                lines.contains {
                    $0.hasPrefix("receiptd_retries_total") && $0.contains("error_class=\"http\"") && $0.hasSuffix(" 1")
                }
            )
            #expect(lines.contains { $0.hasPrefix("receiptd_apple_request_duration_seconds_count") })
            #expect(value("receiptd_jobs_in_flight") == 0)
        }
    }
}

@Suite struct RetentionTests {
    @Test func theDaemonDeletesOldFinishedJobsButKeepsOrdersAndTheLedger() async throws {
        try await Fixture.with { f in
            let old = try await f.enqueue("old", receipt: Receipts.paying("7101"))
            let recent = try await f.enqueue("recent", user: "u2", receipt: Receipts.paying("7102"))
            try await f.connection.execute(
                """
                UPDATE iap.jobs SET state = 'failed', attempts = 1, last_error = 'x',
                    finished_at = now() - make_interval(days => $2) WHERE id = $1
                """,
                [old, 40]
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.attempts (job_id, order_id, attempt, started_at, duration_ms, result)
                VALUES ($1, 'old', 1, now() - interval '40 days', 5, 'retry')
                """,
                [old]
            )
            let settings = f.settings { $0.daemon.retention = .seconds(30 * 86_400) }
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await f.value("SELECT count(*) FROM iap.jobs WHERE id = $1", [old]) == "0" }
                try await f.waitUntilSettled()
            }
            #expect(try await f.value("SELECT count(*) FROM iap.attempts WHERE job_id = $1", [old]) == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE order_id = 'old'") == "1")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [recent]) == "succeeded")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = '7102'") == "1")
        }
    }
}

@Suite struct StatusLivenessTests {
    @Test func statusCountsOutcomesAndShowsLivingDaemons() async throws {
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("7201"))
            try await f.enqueue("o2", user: "u2", receipt: SyntheticReceipt(inApp: []).encoded())
            let queries = OperatorQueries(connection: f.connection)
            try await f.withDaemons(count: 2) { daemons in
                try await f.waitUntilSettled()
                try await f.waitUntil { try await queries.status().daemons.count == 2 }
                let status = try await queries.status()
                #expect(Set(status.daemons.map(\.daemon)) == Set(daemons.map(\.identity)))
                #expect(status.daemons.allSatisfy { $0.alive })
                #expect(status.outcomes.map(\.outcome) == ["full", "no_in_app"])
                #expect(status.outcomes.map(\.orders) == [1, 1])
            }
            // A graceful stop signs off.
            #expect(try await queries.status().daemons.isEmpty)
        }
    }
}
