import ArgumentParser
import Foundation
import ReceiptdTools

/// `receiptd benchmark`: throughput, latency and cost per scenario on a throwaway PostgreSQL, plus the database ceiling.
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchmark",
        abstract: "Measure receiptd (1/2/4 daemons, Apple at 0 and 250 ms) against pgbench's database ceiling."
    )

    @Option(help: "Orders per scenario.") var orders = 20_000
    @Option(help: "Daemon process counts, comma-separated.") var daemons = "1,2,4"
    @Option(help: "Stand-in latencies in milliseconds, comma-separated.") var appleLatencies = "0,250"
    @Option(help: "Seconds pgbench runs for the database ceiling.") var ceilingSeconds = 15
    @Option(help: "Write the report as JSON to this file.") var json: String?
    @Option(help: "Write a PNG plot to this file (needs gnuplot).") var plot: String?
    @Option(help: "Another receiptd executable (an earlier build) to run every scenario beside this one.") var baseline:
        String?
    @Option(help: "Orders in the console row's database (0 skips the row).") var consoleOrders = 1_000_000
    @Option(help: "Runs of each scenario, the builds alternating; the table gives medians and the spread.") var runs = 1
    @Flag(help: "Measure the console row only (with --console-orders).") var consoleOnly = false
    @Option(help: "Subscriptions in the database of a successful game's size (0 skips its rows).") var subscriptions =
        1_000_000
    @Flag(help: "Measure the rows at a successful game's size only (with --subscriptions).") var sizeOnly = false
    @Option(help: "Renewals in each store's renewal storm at a successful game's size (0 skips the storms).")
    var renewals = 50_000

    func validate() throws {
        guard orders >= 10, ceilingSeconds >= 1, runs >= 1, consoleOrders >= 0, !consoleOnly || consoleOrders >= 100,
            subscriptions >= 0, !sizeOnly || subscriptions >= 100, renewals >= 0, !(consoleOnly && sizeOnly),
            numbers(daemons) != nil, numbers(appleLatencies) != nil
        else {
            throw ValidationError(
                "need --orders ≥ 10, --ceiling-seconds ≥ 1, --runs ≥ 1, --console-orders ≥ 0 (≥ 100 with --console-only), "
                    + "--subscriptions ≥ 0 (≥ 100 with --size-only), --renewals ≥ 0, at most one of --console-only and --size-only, "
                    + "and comma-separated whole numbers"
            )
        }
        if let baseline, !FileManager.default.isExecutableFile(atPath: baseline) {
            throw ValidationError("--baseline \(baseline) is not an executable file")
        }
    }

    func run() async throws {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let benchmark = BenchmarkRun(
            configuration: .init(
                orders: orders,
                daemonCounts: numbers(daemons) ?? [1],
                appleLatencies: numbers(appleLatencies) ?? [0],
                ceilingSeconds: ceilingSeconds,
                baseline: baseline,
                consoleOrders: consoleOrders,
                consoleOnly: consoleOnly,
                subscriptions: subscriptions,
                sizeOnly: sizeOnly,
                renewals: renewals,
                runs: runs
            ),
            // Unbuffered, so progress shows while the run goes on even when stdout is a file.
            executable: executable,
            say: { FileHandle.standardOutput.write(Data("benchmark: \($0)\n".utf8)) }
        )
        let report = try await benchmark.run(
            command: (["receiptd"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        )
        print(report.table)
        if let json { try report.json().write(to: URL(fileURLWithPath: json)) }
        if let plot, let note = try await BenchmarkRun.writePlot(report, to: plot) { print("benchmark: \(note)") }
        let badConsoleAnswers = report.console.map { $0.orderPage.failures + $0.search.failures > 0 } ?? false
        let wrongLedger = report.gameSize?.storms.contains { $0.deliveredWrongly > 0 } ?? false
        if report.scenarios.contains(where: { !$0.correct }) || report.webhookDelivery?.correct == false
            || badConsoleAnswers || wrongLedger
        {
            throw ExitCode.failure
        }
    }

    private func numbers(_ list: String) -> [Int]? {
        let values = list.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return values.isEmpty || values.contains { $0 < 0 } ? nil : values
    }
}
