import ReceiptdCore
import Testing

@testable import ReceiptdTools

/// The benchmark's table rows: repeated runs summed up as medians, and each row's ratio to the baseline build.
@Suite struct BenchmarkRowSummaryTests {
    private func run(
        _ build: String,
        ordersPerSecond: Double,
        daemonCPU: Double,
        postgresCPU: Double,
        kind: JobKind = .receipt,
        correct: Bool = true
    ) -> BenchmarkScenario {
        BenchmarkScenario(
            daemons: 1,
            appleLatencyMilliseconds: 0,
            concurrencyPerDaemon: 1_024,
            orders: 30_000,
            seconds: 30_000 / ordersPerSecond,
            ordersPerSecond: ordersPerSecond,
            enqueuedPerSecond: ordersPerSecond * 2,
            retries: 1,
            latency: LatencySummary(seconds: [ordersPerSecond / 1000]),
            build: build,
            cpuSecondsPer1000Orders: daemonCPU,
            postgresCPUSecondsPer1000Orders: postgresCPU,
            standInCPUSecondsPer1000Orders: 0.1,
            peakRSSMebibytes: ordersPerSecond / 100,
            correct: correct,
            kind: kind
        )
    }

    @Test func repeatedRunsBecomeOneRowOfMediansWithTheirRatioToTheBaseline() {
        let scenarios = [
            run("baseline", ordersPerSecond: 3_000, daemonCPU: 0.22, postgresCPU: 0.20),
            run("this", ordersPerSecond: 5_000, daemonCPU: 0.12, postgresCPU: 0.10),
            run("baseline", ordersPerSecond: 2_000, daemonCPU: 0.30, postgresCPU: 0.10),
            run("this", ordersPerSecond: 4_000, daemonCPU: 0.10, postgresCPU: 0.12),
            run("baseline", ordersPerSecond: 3_200, daemonCPU: 0.20, postgresCPU: 0.18),
            run("this", ordersPerSecond: 6_400, daemonCPU: 0.11, postgresCPU: 0.11, correct: false),
            run("this", ordersPerSecond: 1_000, daemonCPU: 0.5, postgresCPU: 0.5, kind: .transaction),
        ]
        let rows = BenchmarkRowSummary.rows(scenarios)
        #expect(rows.map(\.build) == ["baseline", "this", "this"])
        #expect(rows.map(\.runs) == [3, 3, 1])

        let baseline = rows[0]
        #expect(baseline.ordersPerSecond == 3_000)
        #expect(baseline.ordersPerSecondRange == 2_000...3_200)
        #expect(baseline.cpuSecondsPer1000Orders == 0.22)
        #expect(baseline.postgresCPUSecondsPer1000Orders == 0.18)
        #expect(baseline.retries == 3)
        #expect(baseline.latency.count == 1 && baseline.latency.p50 == 3_000, "the median run's latency")
        #expect(baseline.peakRSSMebibytes == 32)
        #expect(baseline.correct)
        #expect(baseline.throughputRatio == 1 && baseline.cpuRatio == 1)

        let this = rows[1]
        #expect(this.ordersPerSecond == 5_000)
        #expect(this.throughputRatio.map { abs($0 - 5_000 / 3_000) < 1e-9 } == true)
        #expect(this.cpuRatio.map { abs($0 - (0.11 + 0.11) / (0.22 + 0.18)) < 1e-9 } == true)
        #expect(!this.correct, "one wrong run makes the row wrong")

        let transaction = rows[2]
        #expect(transaction.kind == .transaction)
        #expect(transaction.throughputRatio == nil, "no baseline row of that kind")
    }

    @Test func anEvenNumberOfRunsTakesTheMeanOfTheMiddleTwo() {
        #expect(BenchmarkRowSummary.median([4, 1, 3, 2]) == 2.5)
        #expect(BenchmarkRowSummary.median([7]) == 7)
    }

    @Test func theTableShowsTheRatioAndTheSpreadOnlyWhenThereIsOne() {
        var report = BenchmarkReport(command: "receiptd benchmark", orders: 30_000)
        report.scenarios = [
            run("baseline", ordersPerSecond: 2_000, daemonCPU: 0.2, postgresCPU: 0.2),
            run("this", ordersPerSecond: 3_000, daemonCPU: 0.1, postgresCPU: 0.1),
            run("baseline", ordersPerSecond: 2_200, daemonCPU: 0.2, postgresCPU: 0.2),
            run("this", ordersPerSecond: 3_300, daemonCPU: 0.1, postgresCPU: 0.1),
        ]
        let lines = report.table.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("× baseline: orders/s / CPU") && lines[0].contains("median"))
        #expect(lines[2].hasPrefix("| baseline | receipt | 1 × 1024 | 0 ms | 2 | 2100 (2000–2200) | 1.00 / 1.00 |"))
        #expect(lines[3].hasPrefix("| this | receipt | 1 × 1024 | 0 ms | 2 | 3150 (3000–3300) | 1.50 / 0.50 |"))

        report.scenarios = [run("this", ordersPerSecond: 3_000, daemonCPU: 0.1, postgresCPU: 0.1)]
        let alone = report.table.split(separator: "\n").map(String.init)
        #expect(!alone[0].contains("median"))
        #expect(alone[2].hasPrefix("| this | receipt | 1 × 1024 | 0 ms | 1 | 3000 | – |"))
    }
}
