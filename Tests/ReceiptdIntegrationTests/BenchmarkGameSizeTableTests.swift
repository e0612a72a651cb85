import Testing

@testable import ReceiptdTools

/// The rows at a successful game's size in the benchmark's table and plot (issue #48's "Done means"): the build
/// before sits beside this build, and each figure is read against its goal.
@Suite struct BenchmarkGameSizeTableTests {
    private func size(p95: Double, idleCPU: Double) -> BenchmarkGameSize {
        BenchmarkGameSize(
            subscriptions: 1_000,
            players: 500,
            deliveries: 4_000,
            orders: 4_000,
            jobs: 4_000,
            history: 4_000,
            seedSeconds: 3,
            databaseBytes: 50_000_000,
            login: LoginReadLatency(
                connections: 16,
                seconds: 10,
                calls: 100_000,
                callsPerSecond: 10_000,
                p50: 0.5,
                p95: p95,
                p99: p95 * 2,
                max: p95 * 3,
                failures: 0
            ),
            idle: IdleDaemonCost(
                seconds: 60,
                daemonCPUSecondsPerMinute: idleCPU / 2,
                postgresCPUSecondsPerMinute: idleCPU / 2,
                statements: []
            )
        )
    }

    @Test func theBuildBeforeHasAColumnOfItsOwn() {
        var report = BenchmarkReport(command: "receiptd benchmark --size-only", orders: 0)
        report.gameSize = size(p95: 2, idleCPU: 0.3)
        report.gameSizeBaseline = size(p95: 9_200, idleCPU: 8.8)
        let lines = report.table.split(separator: "\n").map(String.init)
        #expect(lines.contains("| path | this build | the build before | goal |"))
        let login = lines.first { $0.hasPrefix("| `iap.entitlements`") }
        #expect(
            login?.contains("| p50/p95/p99 0.50/2.00/4.00 ms, 10000 calls/s | p50/p95/p99 0.50/9200/18400 ms") == true
        )
        #expect(login?.hasSuffix("| p95 ≤ 3 ms |") == true)
    }

    @Test func aBaselineThatCouldNotRunSaysWhy() {
        var report = BenchmarkReport(command: "receiptd benchmark --size-only", orders: 0)
        report.gameSize = size(p95: 2, idleCPU: 0.3)
        report.gameSizeBaselineFailure = "the seed failed: column x does not exist"
        let lines = report.table.split(separator: "\n").map(String.init)
        #expect(lines.contains("| path | this build | the build before | goal |"))
        #expect(lines.first { $0.hasPrefix("| an idle daemon") }?.contains("| n/a |") == true)
        #expect(lines.contains("The build before could not run at this size: the seed failed: column x does not exist"))
    }

    @Test func withoutABaselineTheTableHasNoColumnForIt() {
        var report = BenchmarkReport(command: "receiptd benchmark --size-only", orders: 0)
        report.gameSize = size(p95: 2, idleCPU: 0.3)
        #expect(report.table.contains("| path | measured | goal |"))
        #expect(!report.table.contains("the build before"))
    }

    @Test func aShareOfOneOrMoreMeetsTheGoalWhicheverWayTheFigureRuns() {
        let shares = size(p95: 6, idleCPU: 0.3).goalShares
        // Less is better for both: p95 6 ms against 3 ms is half the goal; 0.3 s a minute is 0.5% of a core.
        #expect(
            shares == [
                .init(path: "login read p95", share: 0.5),
                .init(path: "idle daemon CPU", share: 0.01 / (0.3 / 60)),
            ]
        )
    }

    @Test func theSizePlotSitsBesideTheScenariosPlot() {
        #expect(BenchmarkRun.sizePlotPath(besides: "/tmp/bench.png") == "/tmp/bench-size.png")
        #expect(BenchmarkRun.sizePlotPath(besides: "/tmp/v1.2/bench") == "/tmp/v1.2/bench-size.png")
        #expect(BenchmarkRun.sizePlotPath(besides: "bench") == "bench-size.png")
    }
}
