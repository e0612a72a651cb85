import Foundation

/// Everything a benchmark run measured, with where and how it ran.
package struct BenchmarkReport: Sendable, Codable {
    /// When the run started (ISO 8601, UTC).
    package var date: String
    /// Online CPU cores.
    package var cores: Int
    /// The 1-minute load average when the run started: other work on the machine skews every number.
    package var loadAverage: Double
    /// The command line that produced it.
    package var command: String
    /// Orders per scenario.
    package var orders: Int
    /// One entry per daemon count × Apple latency.
    package var scenarios: [BenchmarkScenario] = []
    /// pgbench on the daemon's SQL.
    package var ceiling: DatabaseCeiling?
    /// Enqueue → Apple request, idle daemon.
    package var idle: LatencySummary?
    /// Newer receipt's enqueue → old request cancelled and new one started.
    package var replace: LatencySummary?
    /// Offline verifications of signed transactions per second on one core.
    package var signedTransactions: SignedTransactionThroughput?
    /// App Store notifications the intake accepted (committed) per second.
    package var notificationIntake: NotificationIntakeThroughput?
    /// Webhook events one daemon delivered per second to a local receiver.
    package var webhookDelivery: WebhookThroughput?
    /// The support console's order page and search with a production-sized history.
    package var console: ConsoleLatency?
    /// The login read and an idle daemon on a database seeded as a top subscription title's (`--subscriptions`).
    package var gameSize: BenchmarkGameSize?
    /// The same rows for the `--baseline` build, on a database its own `migrate` made and the same seed wrote.
    package var gameSizeBaseline: BenchmarkGameSize?
    /// Why the baseline build's rows at that size are missing, when it could not run them.
    package var gameSizeBaselineFailure: String?

    init(command: String, orders: Int) {
        date = ISO8601DateFormatter().string(from: Date())
        cores = ProcessInfo.processInfo.activeProcessorCount
        var loads = [0.0, 0.0, 0.0]
        loadAverage = getloadavg(&loads, 3) > 0 ? loads[0] : 0
        self.command = command
        self.orders = orders
    }

    /// Best 0-ms throughput over the database ceiling.
    package var ceilingRatio: Double? {
        let best = scenarios.filter { $0.appleLatencyMilliseconds == 0 && $0.build == "this" && $0.kind == .receipt }
            .map(\.ordersPerSecond).max()
        guard let best, let ceiling, ceiling.jobsPerSecond > 0 else { return nil }
        return best / ceiling.jobsPerSecond
    }

    /// Pretty, sorted JSON.
    package func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
