import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTestKit

/// One scenario: a fresh database (or `existingDatabase`), `daemons` processes splitting the concurrency, a load run
/// of full orders (receipts, or signed transactions).
struct BenchmarkScenarioRun {
    let benchmark: BenchmarkRun
    let postgres: TemporaryPostgres
    let standIn: AppStoreStandIn
    let daemons: Int
    let latency: Int
    /// The `receiptd` that runs the daemons, and what the report calls it.
    let build: (name: String, executable: String)
    /// What the orders carry; signed transactions and Google purchases need `storeEnvironment`, the variables that
    /// point the daemons at the stand-ins' root and key files.
    var kind: JobKind = .receipt
    var storeEnvironment: [String: String] = [:]
    /// Which repetition of the scenario this is (from 1), so each gets a database of its own.
    var run = 1
    /// A migrated database to run on instead of a fresh one (the seeded database at a successful game's size),
    /// which keeps the orders of every run.
    var existingDatabase: String? = nil

    /// Measures the scenario; with `probes`, also the idle and replace latencies (into `report`).
    func run(report: inout BenchmarkReport, probes: Bool) async throws -> BenchmarkScenario {
        let configuration = benchmark.configuration
        let name =
            "bench_\(build.name)_\(latency)ms_\(daemons)d\(kind == .receipt ? "" : "_" + kind.rawValue)\(run > 1 ? "_run\(run)" : "")"
        let database =
            if let existingDatabase { existingDatabase } else {
                try await BenchmarkDatabase.create(
                    on: postgres,
                    named: name,
                    migrator: build.name == "this" ? nil : build.executable
                )
            }
        let url = postgres.connectionString(database: database)
        let concurrency = max(1, configuration.totalConcurrency / daemons)
        let logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-bench-\(getpid())")
            .path
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
        let processes = try (0..<daemons).map { index in
            try DaemonProcess(
                executable: build.executable,
                environment: environment(url, concurrency: concurrency),
                logPath: "\(logDirectory)/\(name)\(existingDatabase.map { "_" + $0 } ?? "")-\(index).log"
            )
        }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(url)
        } catch {
            processes.forEach { if $0.isRunning { $0.kill9() } }
            throw error
        }
        do {
            let scenario = try await measure(
                processes,
                concurrency: concurrency,
                database: database,
                url: url,
                connection: connection,
                report: &report,
                probes: probes
            )
            await connection.close()
            return scenario
        } catch {
            processes.forEach { if $0.isRunning { $0.kill9() } }
            await connection.close()
            throw error
        }
    }

    private func measure(
        _ processes: [DaemonProcess],
        concurrency: Int,
        database: String,
        url: String,
        connection: PostgresConnection,
        report: inout BenchmarkReport,
        probes: Bool
    ) async throws -> BenchmarkScenario {
        let configuration = benchmark.configuration
        try await waitUntilListening(daemons, database: database, connection: connection)
        if probes {
            // Before the load: an idle daemon on a quiet database, not one still vacuuming after a burst.
            report.idle = try await idleLatency(connection: connection, samples: configuration.idleSamples)
            report.replace = try await replaceLatency(connection: connection, samples: configuration.replaceSamples)
        }
        benchmark.say("\(daemons) daemon(s) × \(concurrency), Apple \(latency) ms: \(configuration.orders) orders")
        let mix =
            switch kind {
            case .receipt: "full=1"
            case .transaction: "transaction=1"
            case .googlePurchase: "google=1"
            }
        let generator = LoadGenerator(
            configuration: .init(
                orders: configuration.orders,
                mix: try LoadMix(parsing: mix),
                signer: .chain(standIn.testChain)
            ),
            databaseURL: url
        )
        let postmaster = postgres.postmasterPID ?? 0
        // Retries the database held before (an existing database keeps every run's attempts).
        let retriesBefore = existingDatabase == nil ? 0 : try await retries(connection)
        let cpuBefore = (
            postgres: ProcessStats.treeCPUSeconds(root: postmaster), own: ProcessStats(pid: getpid())?.cpuSeconds ?? 0
        )
        let summary = try await generator.run()
        let verdict = try await generator.waitForOutcomes(of: summary, timeout: configuration.scenarioTimeLimit)
        // Read before the daemons exit: /proc forgets them once they are reaped.
        let stats = processes.compactMap { ProcessStats(pid: $0.pid) }
        let postgresCPU = ProcessStats.treeCPUSeconds(root: postmaster) - cpuBefore.postgres
        let ownCPU = (ProcessStats(pid: getpid())?.cpuSeconds ?? 0) - cpuBefore.own
        let latencies = try await connection.execute(
            "SELECT extract(epoch FROM outcome_at - created_at)::float8 AS s FROM iap.orders WHERE order_id LIKE $1",
            [LoadSummary.ordersPattern(runID: summary.runID)]
        ).rows.compactMap { $0[0].flatMap(Double.init) }
        let retries = try await retries(connection) - retriesBefore
        for process in processes { _ = await process.terminate(timeout: .seconds(10)) }
        let cpu = stats.reduce(0) { $0 + $1.cpuSeconds }
        let perThousand = { (seconds: Double) in verdict.settled > 0 ? seconds / Double(verdict.settled) * 1000 : 0 }
        return BenchmarkScenario(
            daemons: daemons,
            appleLatencyMilliseconds: latency,
            concurrencyPerDaemon: concurrency,
            orders: verdict.settled,
            seconds: verdict.seconds,
            ordersPerSecond: verdict.ordersPerSecond,
            enqueuedPerSecond: summary.ordersPerSecond,
            retries: retries,
            latency: LatencySummary(seconds: latencies),
            build: build.name,
            cpuSecondsPer1000Orders: perThousand(cpu),
            postgresCPUSecondsPer1000Orders: perThousand(postgresCPU),
            standInCPUSecondsPer1000Orders: perThousand(ownCPU),
            peakRSSMebibytes: Double(stats.map(\.peakResidentBytes).max() ?? 0) / 1_048_576,
            correct: verdict.isCorrect,
            kind: kind
        )
    }

    private func retries(_ connection: PostgresConnection) async throws -> Int {
        try await connection.execute("SELECT count(*) AS n FROM iap.attempts WHERE result = 'retry'").first?.int("n")
            ?? 0
    }

    private func environment(_ url: String, concurrency: Int) -> [String: String] {
        DaemonProcess.environment(
            database: url,
            standIn: standIn,
            overrides: storeEnvironment.merging([
                "RECEIPTD_CONCURRENCY": String(concurrency),
                // A transient failure retries within a second instead of minutes, so a scenario ends.
                "RECEIPTD_BACKOFF_BASE": "0.05", "RECEIPTD_BACKOFF_MAX": "1", "RECEIPTD_MAX_ATTEMPTS": "100",
            ]) { $1 }
        )
    }

    /// Waits until every daemon has its `LISTEN` up, so the clock does not include their start.
    private func waitUntilListening(_ count: Int, database: String, connection: PostgresConnection) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let listening =
                try await connection.execute(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'",
                    [database]
                ).first?.int("n") ?? 0
            if listening >= count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LoadError(
            "daemons did not start listening within 30 s (logs in \(FileManager.default.temporaryDirectory.path))"
        )
    }
}
