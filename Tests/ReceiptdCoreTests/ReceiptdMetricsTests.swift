import Prometheus
import Testing

@testable import ReceiptdCore

/// The metric names, labels and buckets, read back from a private Prometheus registry.
@Suite struct ReceiptdMetricsTests {
    let registry = PrometheusCollectorRegistry()
    var metrics: ReceiptdMetrics { ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry)) }

    func exported() -> [String] { registry.emitToString().split(separator: "\n").map(String.init) }

    @Test func countersCarryTheirLabels() {
        let metrics = self.metrics
        metrics.jobsClaimed(3)
        metrics.jobsClaimed(0)
        metrics.jobsClaimed(2)
        metrics.jobFinished(state: .succeeded, outcome: .noInApp)
        metrics.jobFinished(state: .succeeded, outcome: .noInApp)
        metrics.jobFinished(state: .superseded)
        metrics.retry(errorClass: .http)
        metrics.databaseReconnect()
        let lines = exported()
        #expect(lines.contains("receiptd_jobs_claimed_total 5"))
        #expect(lines.contains(#"receiptd_jobs_finished_total{state="succeeded",outcome="no_in_app"} 2"#))
        #expect(lines.contains(#"receiptd_jobs_finished_total{state="superseded",outcome="none"} 1"#))
        #expect(lines.contains(#"receiptd_retries_total{error_class="http"} 1"#))
        #expect(lines.contains("receiptd_database_reconnects_total 1"))
    }

    @Test func gaugesCanBeSet() {
        let metrics = self.metrics
        metrics.setInFlight(5)
        metrics.setInFlight(4)
        metrics.queueDepth(due: 12, oldestDueAgeSeconds: 4.5)
        let lines = exported()
        #expect(lines.contains("receiptd_jobs_in_flight 4.0"))
        #expect(lines.contains("receiptd_queue_due_jobs 12.0"))
        #expect(lines.contains("receiptd_queue_oldest_due_age_seconds 4.5"))
    }

    @Test func appleRequestsFillAHistogramFrom50MillisecondsTo30Seconds() {
        let metrics = self.metrics
        metrics.appleRequest(environment: .production, api: .verifyReceipt, failure: nil, seconds: 0.2)
        metrics.appleRequest(environment: .production, api: .verifyReceipt, failure: nil, seconds: 12)
        metrics.appleRequest(environment: .sandbox, api: .verifyReceipt, failure: .transport, seconds: 31)
        let lines = exported()
        let production =
            #"receiptd_apple_request_duration_seconds_bucket{environment="production",api="verify_receipt",store="apple",result="ok",le="#
        #expect(lines.contains(production + #""0.05"} 0"#))
        #expect(lines.contains(production + #""0.25"} 1"#))
        #expect(lines.contains(production + #""20.0"} 2"#))
        #expect(lines.contains(production + #""30.0"} 2"#))
        #expect(
            lines.contains(
                #"receiptd_apple_request_duration_seconds_count{environment="production",api="verify_receipt",store="apple",result="ok"} 2"#
            )
        )
        #expect(
            lines.contains(
                #"receiptd_apple_request_duration_seconds_bucket{environment="sandbox",api="verify_receipt",store="apple",result="transport",le="30.0"} 0"#
            )
        )
        #expect(
            lines.contains(
                #"receiptd_apple_request_duration_seconds_bucket{environment="sandbox",api="verify_receipt",store="apple",result="transport",le="+Inf"} 1"#
            )
        )
    }
}
