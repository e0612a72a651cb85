import ReceiptdCore

/// The repeated runs of one scenario (one build, one kind of job, one daemon count and latency) as one table row:
/// the median of each figure, the spread of the throughput, and the ratio to the baseline build's row.
package struct BenchmarkRowSummary: Sendable {
    /// Which receiptd ran: `this` or `baseline`.
    package var build: String
    /// What the orders carried.
    package var kind: JobKind
    /// Daemon processes.
    package var daemons: Int
    /// `RECEIPTD_CONCURRENCY` of each daemon.
    package var concurrencyPerDaemon: Int
    /// The stand-in's latency, in milliseconds.
    package var appleLatencyMilliseconds: Int
    /// Runs summed up.
    package var runs: Int
    /// Median orders per second.
    package var ordersPerSecond: Double
    /// Slowest and fastest run's orders per second.
    package var ordersPerSecondRange: ClosedRange<Double>
    /// Median enqueue rate.
    package var enqueuedPerSecond: Double
    /// Retries over all runs.
    package var retries: Int
    /// The latency summary of the median run (by orders per second).
    package var latency: LatencySummary
    /// Median CPU seconds per 1,000 orders: daemons, PostgreSQL, and the benchmark process.
    package var cpuSecondsPer1000Orders: Double
    /// See `cpuSecondsPer1000Orders`.
    package var postgresCPUSecondsPer1000Orders: Double
    /// See `cpuSecondsPer1000Orders`.
    package var standInCPUSecondsPer1000Orders: Double
    /// Largest peak RSS of a daemon over the runs, in MiB.
    package var peakRSSMebibytes: Double
    /// Whether every run's outcomes matched.
    package var correct: Bool
    /// This row's median orders/s over the baseline build's for the same scenario; nil without one.
    package var throughputRatio: Double?
    /// This row's median daemon + PostgreSQL CPU per 1,000 orders over the baseline's; nil without one.
    package var cpuRatio: Double?
    /// The seeded database's subscriptions, for a row of the scenarios at a successful game's size; nil for the
    /// fresh, empty databases.
    package var seededSubscriptions: Int?
    /// A seeded row's median orders/s over this build's row of the same scenario on an empty database; nil without one.
    package var emptyThroughputRatio: Double?
    /// A seeded row's daemon + PostgreSQL CPU per 1,000 orders over that empty-database row's; nil without one.
    package var emptyCPURatio: Double?

    /// Daemon and PostgreSQL CPU per 1,000 orders together: what the budget rule holds.
    package var serverCPUSecondsPer1000Orders: Double { cpuSecondsPer1000Orders + postgresCPUSecondsPer1000Orders }

    /// One row per scenario and build, in the order the scenarios first ran, each with its ratio to the
    /// baseline's row for the same kind, daemon count and latency.
    package static func rows(_ scenarios: [BenchmarkScenario]) -> [BenchmarkRowSummary] {
        var order: [RowKey] = []
        var groups: [RowKey: [BenchmarkScenario]] = [:]
        for scenario in scenarios {
            let key = RowKey(build: scenario.build, scenario: ScenarioKey(scenario))
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(scenario)
        }
        var rows = order.compactMap { groups[$0].map(Self.init(runs:)) }
        let baselines = Dictionary(
            rows.filter { $0.build == "baseline" }.map { (ScenarioKey($0), $0) },
            uniquingKeysWith: { first, _ in first }
        )
        for index in rows.indices {
            guard let baseline = baselines[ScenarioKey(rows[index])] else { continue }
            (rows[index].throughputRatio, rows[index].cpuRatio) = rows[index].ratios(over: baseline)
        }
        return rows
    }

    /// One row per scenario of `seeded` (run on the seeded database), each with its ratio to this build's row of the
    /// same kind, daemon count and latency in `empty` (the scenarios on fresh, empty databases).
    package static func seededRows(
        _ seeded: [BenchmarkScenario],
        empty: [BenchmarkScenario]
    ) -> [BenchmarkRowSummary] {
        let references = Dictionary(
            rows(empty.filter { $0.build == "this" && $0.seededSubscriptions == nil }).map { (ScenarioKey($0), $0) },
            uniquingKeysWith: { first, _ in first }
        )
        return rows(seeded.filter { $0.seededSubscriptions != nil }).map { row in
            var row = row
            if let reference = references[ScenarioKey(row).onEmptyDatabase] {
                (row.emptyThroughputRatio, row.emptyCPURatio) = row.ratios(over: reference)
            }
            return row
        }
    }

    /// Orders/s and daemon + PostgreSQL CPU per 1,000 orders over `reference`'s; nil where it has none.
    private func ratios(over reference: BenchmarkRowSummary) -> (throughput: Double?, cpu: Double?) {
        (
            reference.ordersPerSecond > 0 ? ordersPerSecond / reference.ordersPerSecond : nil,
            reference.serverCPUSecondsPer1000Orders > 0
                ? serverCPUSecondsPer1000Orders / reference.serverCPUSecondsPer1000Orders : nil
        )
    }

    /// What makes runs of two builds the same scenario (the seeded database's runs are one of their own).
    private struct ScenarioKey: Hashable {
        var kind: JobKind
        var daemons: Int
        var latency: Int
        var seeded: Bool

        init(_ scenario: BenchmarkScenario) {
            (kind, daemons, latency) = (scenario.kind, scenario.daemons, scenario.appleLatencyMilliseconds)
            seeded = scenario.seededSubscriptions != nil
        }

        init(_ row: BenchmarkRowSummary) {
            (kind, daemons, latency) = (row.kind, row.daemons, row.appleLatencyMilliseconds)
            seeded = row.seededSubscriptions != nil
        }

        /// The same scenario on a fresh, empty database.
        var onEmptyDatabase: ScenarioKey {
            var key = self
            key.seeded = false
            return key
        }
    }

    /// One row of the table: a build's runs of a scenario.
    private struct RowKey: Hashable {
        var build: String
        var scenario: ScenarioKey
    }

    /// Sums up the runs of one scenario (not empty).
    init(runs: [BenchmarkScenario]) {
        let byThroughput = runs.sorted { $0.ordersPerSecond < $1.ordersPerSecond }
        let first = byThroughput[0]
        build = first.build
        kind = first.kind
        daemons = first.daemons
        concurrencyPerDaemon = first.concurrencyPerDaemon
        appleLatencyMilliseconds = first.appleLatencyMilliseconds
        self.runs = runs.count
        ordersPerSecond = Self.median(runs.map(\.ordersPerSecond))
        ordersPerSecondRange = first.ordersPerSecond...byThroughput[byThroughput.count - 1].ordersPerSecond
        enqueuedPerSecond = Self.median(runs.map(\.enqueuedPerSecond))
        retries = runs.reduce(0) { $0 + $1.retries }
        latency = byThroughput[(byThroughput.count - 1) / 2].latency
        cpuSecondsPer1000Orders = Self.median(runs.map(\.cpuSecondsPer1000Orders))
        postgresCPUSecondsPer1000Orders = Self.median(runs.map(\.postgresCPUSecondsPer1000Orders))
        standInCPUSecondsPer1000Orders = Self.median(runs.map(\.standInCPUSecondsPer1000Orders))
        peakRSSMebibytes = runs.map(\.peakRSSMebibytes).max() ?? 0
        correct = runs.allSatisfy(\.correct)
        seededSubscriptions = first.seededSubscriptions
    }

    /// The median of `values` (not empty); the mean of the middle two for an even count.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
