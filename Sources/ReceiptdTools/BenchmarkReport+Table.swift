import Foundation
import ReceiptdCore

extension BenchmarkReport {
    /// The scenario table and the single numbers, for a terminal or the Benchmark article.
    package var table: String {
        let rows = BenchmarkRowSummary.rows(scenarios)
        let repeated = rows.contains { $0.runs > 1 }
        // A run of the console's or the size rows alone has no scenario to tabulate.
        var lines =
            rows.isEmpty
            ? []
            : [
                "| build | jobs | daemons × concurrency | Apple latency | runs | orders/s\(repeated ? " (median; slowest–fastest)" : "") "
                    + "| × baseline: orders/s / CPU | enqueued/s | retries | enqueue→outcome p50/p90/p99/max ms "
                    + "| CPU s / 1k orders: daemons / PostgreSQL / stand-in + load | peak RSS MiB | outcomes ok |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            ]
        for row in rows { lines.append(Self.line(row)) }
        if !rows.isEmpty { lines.append("") }
        if let ceiling {
            let ratio = ceilingRatio.map { String(format: "%.0f%%", $0 * 100) } ?? "n/a"
            lines.append(
                "Database ceiling (pgbench, \(ceiling.clients) clients, \(ceiling.seconds) s): "
                    + "\(Self.format(ceiling.jobsPerSecond)) jobs/s, \(String(format: "%.1f", ceiling.averageLatencyMilliseconds)) ms per job; "
                    + "receiptd's best 0 ms throughput is \(ratio) of it"
            )
        }
        if let signed = signedTransactions {
            lines.append(
                "Signed transactions verified offline on one core: \(Self.format(signed.cachedChainPerSecond))/s with the "
                    + "chain cached (as the daemon runs), \(Self.format(signed.coldChainPerSecond))/s verifying the chain every time"
            )
        }
        if let intake = notificationIntake {
            lines.append(
                "App Store notifications accepted (committed before the 200): \(Self.format(intake.acceptedPerSecond))/s "
                    + "over \(intake.notifications) notifications, \(intake.connections) connections, "
                    + "\(intake.databaseConnections) database connections\(intake.correct ? "" : ", SOME NOT RECORDED")"
            )
        }
        if let webhooks = webhookDelivery {
            lines.append(
                "Webhook events delivered per second to a local receiver (goal ≥ 1,000/s): "
                    + "\(Self.format(webhooks.deliveredPerSecond))/s over \(webhooks.events) events written in one INSERT, "
                    + "\(webhooks.daemons) daemon × \(webhooks.concurrency) in flight, each signature checked; CPU s / 1k events: "
                    + String(
                        format: "daemon %.2f / PostgreSQL %.2f / receiver %.2f",
                        webhooks.cpuSecondsPer1000Events,
                        webhooks.postgresCPUSecondsPer1000Events,
                        webhooks.receiverCPUSecondsPer1000Events
                    )
                    + (webhooks.baseline.map { "; baseline: \($0)" } ?? "")
                    + (webhooks.correct ? "" : ", SOME NOT DELIVERED OR NOT VERIFIED")
            )
        }
        if let console {
            lines.append(
                "Console, p50/p95/max ms with \(console.orders) orders (goal p95 < \(Int(ConsoleLatency.goalMilliseconds)) ms): "
                    + "order page \(console.orderPage.text), search \(console.search.text); "
                    + "\(console.orderPage.count) requests each, \(console.concurrency) at once; "
                    + "\(console.jobs) jobs, \(console.attempts) attempts, \(console.deliveries) ledger rows seeded in "
                    + String(format: "%.1f s", console.seedSeconds)
                    + (console.baseline.map { "; baseline: \($0)" } ?? "")
                    + (console.orderPage.failures + console.search.failures > 0
                        ? ", \(console.orderPage.failures + console.search.failures) BAD ANSWERS" : "")
            )
        }
        if let gameSize {
            lines += Self.lines(
                gameSize,
                baseline: gameSizeBaseline,
                baselineFailure: gameSizeBaselineFailure,
                empty: scenarios
            )
        }
        if let idle {
            lines.append(
                "Idle latency, enqueue → Apple request (ms, p50/p90/p99/max): \(idle.text) over \(idle.count) orders"
            )
        }
        if let replace {
            lines.append(
                "Replace latency, newer receipt → old request cancelled and new one started (ms, p50/p90/p99/max): "
                    + "\(replace.text) over \(replace.count) orders"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The rows at a successful game's size: the seeded database, the login read, the idle daemon and its costliest
    /// statements, the storms, lost renewals and the renewal ceiling; with a baseline, its figures in a column of their
    /// own beside this build's; then the scenarios on the seeded database beside this build's on `empty` ones.
    private static func lines(
        _ size: BenchmarkGameSize,
        baseline: BenchmarkGameSize?,
        baselineFailure: String?,
        empty: [BenchmarkScenario]
    ) -> [String] {
        var lines = [
            "",
            "At a successful game's size: \(size.subscriptions) subscriptions of \(size.players) players; "
                + "\(size.deliveries) ledger rows, \(size.orders) orders, \(size.jobs) jobs, \(size.history) history rows, "
                + String(format: "%.1f GB, seeded in %.0f s", Double(size.databaseBytes) / 1e9, size.seedSeconds),
            "",
        ]
        let before = baseline.map(sizeRows)
        let beforeColumn = before != nil || baselineFailure != nil
        lines +=
            beforeColumn
            ? ["| path | this build | the build before | goal |", "|---|---|---|---|"]
            : ["| path | measured | goal |", "|---|---|---|"]
        for row in sizeRows(size) {
            var cells = [row.path, row.measured]
            if beforeColumn {
                cells.append(before?.first { $0.path == row.path }?.measured ?? (baselineFailure == nil ? "–" : "n/a"))
            }
            cells.append(row.goal)
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        if let failure = size.renewalCeilingFailure {
            lines.append("")
            lines.append("The renewal ceiling could not run: \(failure.prefix(500))")
        }
        if let baselineFailure {
            lines.append("")
            lines.append("The build before could not run at this size: \(baselineFailure)")
        }
        lines += statementLines("the idle daemon's costliest statements", size.idle.statements)
        for storm in size.storms {
            lines += statementLines("the \(storeName(storm.store)) storm's costliest statements", storm.statements)
        }
        return lines + seededLines(BenchmarkRowSummary.seededRows(size.scenarios ?? [], empty: empty))
    }

    /// One build's figures at a successful game's size: each path, what it measured and its goal.
    private static func sizeRows(_ size: BenchmarkGameSize) -> [(path: String, measured: String, goal: String)] {
        let login = size.login
        let idle = size.idle
        return [
            (
                "`iap.entitlements`, \(login.connections) connections, \(String(format: "%.0f", login.seconds)) s",
                "p50/p95/p99 \(login.text) ms, \(format(login.callsPerSecond)) calls/s"
                    + (login.failures > 0 ? ", \(login.failures) FAILED" : ""),
                "p95 ≤ \(String(format: "%.0f", LoginReadLatency.goalMilliseconds)) ms"
            ),
            (
                "an idle daemon, \(String(format: "%.0f", idle.seconds)) s",
                String(
                    format: "%.2f s daemon + %.2f s PostgreSQL CPU a minute (%.2f%% of a core)",
                    idle.daemonCPUSecondsPerMinute,
                    idle.postgresCPUSecondsPerMinute,
                    idle.shareOfCore * 100
                ),
                "< \(String(format: "%.0f", IdleDaemonCost.goalShareOfCore * 100))% of a core"
            ),
        ]
            + size.storms.map { stormRow($0, ceiling: size.renewalCeiling) } + size.lostRenewals.map(lostRow)
            + (size.renewalCeiling.map { ceiling in
                [
                    (
                        "the renewal's own SQL (pgbench, \(ceiling.clients) clients, \(ceiling.seconds) s a store)",
                        "App Store \(format(ceiling.apple)) renewals/s, Google Play \(format(ceiling.google)) renewals/s",
                        "the ceiling each storm is a share of"
                    )
                ]
            } ?? [])
    }

    /// A renewal storm's row of the size table.
    private static func stormRow(
        _ storm: RenewalStormFigures,
        ceiling: RenewalCeiling?
    ) -> (path: String, measured: String, goal: String) {
        let settled =
            storm.timedOut
            ? "\(storm.settled) of \(storm.renewals) settled when the \(String(format: "%.0f", storm.seconds)) s ran out"
            : "\(storm.renewals) settled in \(String(format: "%.1f", storm.seconds)) s"
        let measured =
            "\(format(storm.renewalsPerSecond)) renewals/s end to end (\(settled)); posted in "
            + String(
                format: "%.1f s, intake p50/p99 %.1f/%.1f ms; CPU s / 1k renewals: daemon %.2f / PostgreSQL %.2f; ",
                storm.postingSeconds,
                storm.intakeP50Milliseconds,
                storm.intakeP99Milliseconds,
                storm.daemonCPUSecondsPer1000,
                storm.postgresCPUSecondsPer1000
            )
            + String(
                format: "%.2f store calls per renewal; daemon peak RSS %.0f MiB; ",
                storm.storeCallsPerRenewal,
                Double(storm.daemonPeakRSSBytes) / 1_048_576
            )
            + (storm.exactlyOnce ? "every period delivered exactly once" : "NOT every period delivered exactly once")
            + (storm.deliveredWrongly > 0 ? " (\(storm.deliveredWrongly) DELIVERED WRONGLY)" : "")
            + (storm.accepted < storm.renewals ? ", \(storm.renewals - storm.accepted) NOT ACCEPTED" : "")
            + (ceiling?.share(of: storm.renewalsPerSecond, store: storm.store).map {
                String(format: "; %.0f%% of the renewal ceiling", $0 * 100)
            } ?? "")
        return (
            "\(storeName(storm.store)) renewal storm, \(storm.renewals) renewals over \(storm.connections) connections",
            measured,
            "≥ \(format(storm.goalPerSecond))/s end to end; 0 store calls for news that leaves nothing open; "
                + "peak RSS < 300 MiB"
        )
    }

    /// A run of lost renewals' row of the size table.
    private static func lostRow(_ lost: LostRenewals) -> (path: String, measured: String, goal: String) {
        let run = lost.run
        let limit = lost.limitPerSecond.map {
            String(
                format: " (%.0f%% of the limit of %.0f/s; the drain it allows %.0f s)",
                lost.rereadsPerSecond / $0 * 100,
                $0,
                lost.drainAtLimitSeconds ?? 0
            )
        }
        return (
            "\(storeName(lost.store)) lost renewals, \(lost.renewals) entitlements ending with no news, "
                + "\(lost.atLimits ? "at the store's limits" : "limits lifted"), stand-in at \(lost.latencyMilliseconds) ms",
            "\(lost.found) of \(lost.renewals) found and delivered "
                + String(
                    format: "%.1f s after the entitlements ended: %.0f re-reads/s",
                    lost.drainSeconds,
                    lost.rereadsPerSecond
                )
                + (limit ?? "")
                + String(
                    format:
                        "; CPU s / 1k: daemon %.2f / PostgreSQL %.2f; %.2f store calls per renewal; peak RSS %.0f MiB; ",
                    run.daemonCPUSecondsPer1000,
                    run.postgresCPUSecondsPer1000,
                    run.storeCallsPerRenewal,
                    Double(run.daemonPeakRSSBytes) / 1_048_576
                )
                + (run.exactlyOnce ? "every period delivered exactly once" : "NOT every period delivered exactly once")
                + (run.timedOut ? "; TIMED OUT" : ""),
            lost.atLimits
                ? "≥ \(String(format: "%.0f", LostRenewalSource.goalShareOfLimit * 100))% of the limit"
                : "≥ \(format(LostRenewalSource.liftedGoalPerSecond)) re-reads/s"
        )
    }

    /// A table of `statements` (from `pg_stat_statements`) headed `title`; nothing when there are none.
    private static func statementLines(_ title: String, _ statements: [IdleDaemonCost.Statement]) -> [String] {
        guard !statements.isEmpty else { return [] }
        var lines = ["", "| \(title) | calls | ms |", "|---|---|---|"]
        for statement in statements {
            let text = statement.query.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| `\(text)` | \(statement.calls) | \(String(format: "%.1f", statement.totalMilliseconds)) |")
        }
        return lines
    }

    /// The store's name in the table.
    private static func storeName(_ store: Store) -> String {
        switch store {
        case .apple: "App Store"
        case .google: "Google Play"
        }
    }

    /// The scenarios on the seeded database, this build only, each with its ratio to its row on an empty database
    /// (goal: orders/s within 10% of it).
    static func seededLines(_ rows: [BenchmarkRowSummary]) -> [String] {
        guard !rows.isEmpty else { return [] }
        let repeated = rows.contains { $0.runs > 1 }
        var lines = [
            "",
            "| jobs, on the seeded database | daemons × concurrency | Apple latency | runs "
                + "| orders/s\(repeated ? " (median; slowest–fastest)" : "") | × empty: orders/s / CPU "
                + "| enqueue→outcome p50/p90/p99/max ms | CPU s / 1k orders: daemons / PostgreSQL / stand-in + load "
                + "| outcomes ok |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows {
            var throughput = format(row.ordersPerSecond)
            if row.runs > 1 {
                throughput +=
                    " (\(format(row.ordersPerSecondRange.lowerBound))–\(format(row.ordersPerSecondRange.upperBound)))"
            }
            let ratio =
                row.emptyThroughputRatio.map {
                    String(format: "%.2f / %.2f", $0, row.emptyCPURatio ?? Double.nan)
                } ?? "n/a"
            let cpu = String(
                format: "%.2f / %.2f / %.2f",
                row.cpuSecondsPer1000Orders,
                row.postgresCPUSecondsPer1000Orders,
                row.standInCPUSecondsPer1000Orders
            )
            let cells = [
                "\(row.kind.rawValue) (seeded)", "\(row.daemons) × \(row.concurrencyPerDaemon)",
                "\(row.appleLatencyMilliseconds) ms", "\(row.runs)", throughput, ratio, row.latency.text, cpu,
                row.correct ? "yes" : "NO",
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines
    }

    /// One row of the scenario table.
    private static func line(_ row: BenchmarkRowSummary) -> String {
        var throughput = format(row.ordersPerSecond)
        if row.runs > 1 {
            throughput +=
                " (\(format(row.ordersPerSecondRange.lowerBound))–\(format(row.ordersPerSecondRange.upperBound)))"
        }
        var ratio = "–"
        if let throughputRatio = row.throughputRatio {
            ratio = String(format: "%.2f / %.2f", throughputRatio, row.cpuRatio ?? Double.nan)
        }
        let cpu = String(
            format: "%.2f / %.2f / %.2f",
            row.cpuSecondsPer1000Orders,
            row.postgresCPUSecondsPer1000Orders,
            row.standInCPUSecondsPer1000Orders
        )
        let cells: [String] = [
            row.build, row.kind.rawValue, "\(row.daemons) × \(row.concurrencyPerDaemon)",
            "\(row.appleLatencyMilliseconds) ms", "\(row.runs)", throughput, ratio, format(row.enqueuedPerSecond),
            "\(row.retries)", row.latency.text, cpu, String(format: "%.0f", row.peakRSSMebibytes),
            row.correct ? "yes" : "NO",
        ]
        return "| " + cells.joined(separator: " | ") + " |"
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.1f", value) }
}
