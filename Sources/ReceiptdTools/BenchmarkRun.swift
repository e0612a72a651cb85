import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit

/// The benchmark: `receiptd run` processes against a throwaway PostgreSQL and the in-process stand-in,
/// per scenario (daemon count × Apple latency), plus the database ceiling and the idle and replace latencies.
package struct BenchmarkRun: Sendable {
    let configuration: Configuration
    let executable: String
    let say: @Sendable (String) -> Void

    /// Creates a run that starts daemons as `executable run`.
    package init(configuration: Configuration, executable: String, say: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.executable = executable
        self.say = say
    }

    /// Runs one kind of job with `daemons` daemons at `latency` `configuration.runs` times, the builds alternating
    /// run by run, so that a drift of the machine's speed shows in both medians alike. With `probes`, this build's
    /// first run also measures the idle and replace latencies.
    private func runAlternating(
        _ kind: JobKind,
        builds: [(name: String, executable: String)],
        postgres: TemporaryPostgres,
        standIn: AppStoreStandIn,
        daemons: Int,
        latency: Int,
        storeEnvironment: [String: String] = [:],
        probes: Bool = false,
        report: inout BenchmarkReport
    ) async throws {
        for run in 1...configuration.runs {
            for build in builds {
                let scenario = try await BenchmarkScenarioRun(
                    benchmark: self,
                    postgres: postgres,
                    standIn: standIn,
                    daemons: daemons,
                    latency: latency,
                    build: build,
                    kind: kind,
                    storeEnvironment: storeEnvironment,
                    run: run
                ).run(report: &report, probes: probes && run == 1 && build.name == "this")
                say(scenario.line)
                report.scenarios.append(scenario)
            }
        }
    }

    /// Google Play purchases against a stand-in Google Play in this process, acknowledged as they go.
    private func googlePlayScenarios(
        builds: [(name: String, executable: String)],
        postgres: TemporaryPostgres,
        standIn: AppStoreStandIn,
        daemons: Int,
        report: inout BenchmarkReport
    ) async throws {
        let googlePlay = GooglePlayStandIn(
            logger: Logger(label: "fake-googleplay", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await googlePlay.start()
        let files = try GooglePlayFiles(standIn: googlePlay)
        defer { files.remove() }
        do {
            try await runAlternating(
                .googlePurchase,
                builds: builds,
                postgres: postgres,
                standIn: standIn,
                daemons: daemons,
                latency: 0,
                storeEnvironment: files.environment,
                report: &report
            )
            try await googlePlay.shutdown()
        } catch {
            try? await googlePlay.shutdown()
            throw error
        }
    }

    /// Webhook events delivered per second by one daemon of this build to a receiver in this process. A baseline
    /// build from before webhooks has none to measure: `n/a`.
    private func webhookDelivery(
        postgres: TemporaryPostgres,
        standIn: AppStoreStandIn
    ) async throws
        -> WebhookThroughput
    {
        let events = max(configuration.orders, 1_000)
        say("webhook events delivered per second to a local receiver: \(events) events, 1 daemon")
        let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_webhooks")
        var result = try await WebhookThroughput.measure(
            executable: executable,
            connectionString: postgres.connectionString(database: database),
            standIn: standIn,
            events: events,
            postmaster: postgres.postmasterPID,
            timeLimit: .seconds(configuration.scenarioTimeLimit)
        )
        if configuration.baseline != nil { result.baseline = "n/a (the baseline build sends no webhooks)" }
        say(
            "webhooks: \(BenchmarkReport.format(result.deliveredPerSecond)) events/s\(result.correct ? "" : ", SOME NOT DELIVERED")"
        )
        return result
    }

    /// The console's order page and search with `consoleOrders` orders, on a database of its own. A baseline build
    /// from before the console has none to measure: `n/a`.
    private func consoleLatency(postgres: TemporaryPostgres) async throws -> ConsoleLatency {
        say("console: order page and search, p95 with \(configuration.consoleOrders) orders")
        let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_console")
        var result = try await ConsoleLatency.measure(
            connectionString: postgres.connectionString(database: database),
            database: database,
            orders: configuration.consoleOrders,
            say: say
        )
        if configuration.baseline != nil { result.baseline = "n/a (the baseline build has no console)" }
        say("console: order page p50/p95/max \(result.orderPage.text) ms, search \(result.search.text) ms")
        return result
    }

    /// Runs every scenario, then the ceiling, the console row and the rows at a successful game's size; `command`
    /// is recorded in the report. With `consoleOnly`, the console row alone; with `sizeOnly`, the size rows alone.
    package func run(command: String) async throws -> BenchmarkReport {
        if configuration.sizeOnly {
            var report = BenchmarkReport(command: command, orders: configuration.orders)
            report.gameSize = try await gameSize()
            return report
        }
        // synchronous_commit on: every outcome is committed as a production server would commit it.
        let postgres = try TemporaryPostgres.start(
            configuration: .init(
                maxConnections: configuration.totalConcurrency + 200,
                settings: ["synchronous_commit": "on"]
            )
        )
        defer { postgres.stop() }
        var report = BenchmarkReport(command: command, orders: configuration.orders)
        if configuration.consoleOnly {
            report.console = try await consoleLatency(postgres: postgres)
            return report
        }
        for latency in configuration.appleLatencies {
            let standIn = AppStoreStandIn(
                configuration: .init(latency: .fixed(milliseconds: latency)),
                logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            _ = try await standIn.start()
            do {
                let builds =
                    (configuration.baseline.map { [(name: "baseline", executable: $0)] } ?? [])
                    + [(name: "this", executable: executable)]
                for daemons in configuration.daemonCounts {
                    try await runAlternating(
                        .receipt,
                        builds: builds,
                        postgres: postgres,
                        standIn: standIn,
                        daemons: daemons,
                        latency: latency,
                        probes: latency == 0 && daemons == configuration.daemonCounts.first,
                        report: &report
                    )
                }
                if latency == 0, let daemons = configuration.daemonCounts.first {
                    // StoreKit 2 jobs need no store call: the daemons trust the stand-in's chain.
                    let files = try StoreKitFiles(standIn: standIn, key: .generate())
                    defer { files.remove() }
                    try await runAlternating(
                        .transaction,
                        builds: builds,
                        postgres: postgres,
                        standIn: standIn,
                        daemons: daemons,
                        latency: 0,
                        storeEnvironment: files.environment,
                        report: &report
                    )
                    try await googlePlayScenarios(
                        builds: builds,
                        postgres: postgres,
                        standIn: standIn,
                        daemons: daemons,
                        report: &report
                    )
                    say("offline verification of signed transactions, one core")
                    report.signedTransactions = try await SignedTransactionThroughput.measure(chain: standIn.testChain)
                    say("App Store notifications accepted per second, signed beforehand")
                    let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_notifications")
                    report.notificationIntake = try await NotificationIntakeThroughput.measure(
                        connectionString: postgres.connectionString(database: database),
                        chain: standIn.testChain,
                        notifications: max(configuration.orders, 1_000)
                    )
                    report.webhookDelivery = try await webhookDelivery(postgres: postgres, standIn: standIn)
                }
                try await standIn.shutdown()
            } catch {
                try? await standIn.shutdown()
                throw error
            }
        }
        say("database ceiling: pgbench, \(configuration.ceilingClients) clients, \(configuration.ceilingSeconds) s")
        let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_ceiling")
        report.ceiling = try await DatabaseCeiling.measure(
            postgres: postgres,
            database: database,
            clients: configuration.ceilingClients,
            seconds: configuration.ceilingSeconds
        )
        if configuration.consoleOrders > 0 { report.console = try await consoleLatency(postgres: postgres) }
        if configuration.subscriptions > 0 { report.gameSize = try await gameSize() }
        return report
    }

    /// The rows at a successful game's size, on a cluster of their own (this build only).
    private func gameSize() async throws -> BenchmarkGameSize? {
        guard configuration.subscriptions > 0 else { return nil }
        return try await BenchmarkGameSize.measure(
            executable: executable,
            subscriptions: configuration.subscriptions,
            renewals: configuration.renewals,
            say: say
        )
    }
}
