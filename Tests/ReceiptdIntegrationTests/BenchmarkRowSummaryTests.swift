import Foundation
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
        correct: Bool = true,
        seeded: Int? = nil
    ) -> BenchmarkScenario {
        var scenario = BenchmarkScenario(
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
        scenario.seededSubscriptions = seeded
        return scenario
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

    /// The scenarios on the seeded database (issue #48) are rows of their own, each beside this build's row of the
    /// same scenario on an empty database, never the baseline's.
    @Test func theSeededDatabasesRowsStandBesideThisBuildsEmptyOnes() throws {
        let empty = [
            run("baseline", ordersPerSecond: 2_000, daemonCPU: 0.2, postgresCPU: 0.2),
            run("this", ordersPerSecond: 4_000, daemonCPU: 0.1, postgresCPU: 0.1),
            run("this", ordersPerSecond: 1_000, daemonCPU: 0.3, postgresCPU: 0.3, kind: .googlePurchase),
        ]
        let seeded = [
            run("this", ordersPerSecond: 3_600, daemonCPU: 0.12, postgresCPU: 0.10, seeded: 20_000),
            run("this", ordersPerSecond: 3_400, daemonCPU: 0.12, postgresCPU: 0.12, seeded: 20_000),
            run("this", ordersPerSecond: 3_800, daemonCPU: 0.11, postgresCPU: 0.11, seeded: 20_000),
            run("this", ordersPerSecond: 900, daemonCPU: 0.1, postgresCPU: 0.1, kind: .transaction, seeded: 20_000),
        ]
        // Among the other scenarios, the seeded runs stay out of the empty databases' rows.
        #expect(BenchmarkRowSummary.rows(empty + seeded).map(\.runs) == [1, 1, 1, 3, 1])
        #expect(BenchmarkRowSummary.rows(empty + seeded)[3].throughputRatio == nil, "no baseline on that database")

        let rows = BenchmarkRowSummary.seededRows(seeded, empty: empty)
        #expect(rows.map(\.kind) == [.receipt, .transaction])
        #expect(rows.map(\.seededSubscriptions) == [20_000, 20_000])
        let receipt = rows[0]
        #expect(receipt.ordersPerSecond == 3_600)
        #expect(receipt.emptyThroughputRatio.map { abs($0 - 0.9) < 1e-9 } == true, "this build's, not the baseline's")
        #expect(receipt.emptyCPURatio.map { abs($0 - (0.12 + 0.11) / 0.2) < 1e-9 } == true)
        #expect(rows[1].emptyThroughputRatio == nil, "no empty row of that kind")

        var report = BenchmarkReport(command: "receiptd benchmark", orders: 30_000)
        report.scenarios = empty
        let lines = BenchmarkReport.seededLines(rows)
        #expect(lines[1].contains("× empty: orders/s / CPU") && lines[1].contains("median"))
        #expect(lines[3].hasPrefix("| receipt (seeded) | 1 × 1024 | 0 ms | 3 | 3600 (3400–3800) | 0.90 / 1.15 |"))
        #expect(lines[4].hasPrefix("| transaction (seeded) | 1 × 1024 | 0 ms | 1 | 900 | n/a |"))
        #expect(BenchmarkReport.seededLines([]).isEmpty)
        #expect(!report.table.contains("(seeded)"), "the empty databases' table has no seeded row")

        // A report from before the seeded rows reads back as runs on empty databases.
        let json = try JSONEncoder().encode(seeded[0])
        let decoded = try JSONDecoder().decode(BenchmarkScenario.self, from: json)
        #expect(decoded.seededSubscriptions == 20_000)
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        object["seededSubscriptions"] = nil
        let old = try JSONDecoder().decode(
            BenchmarkScenario.self,
            from: try JSONSerialization.data(withJSONObject: object)
        )
        #expect(old.seededSubscriptions == nil)
    }
}
