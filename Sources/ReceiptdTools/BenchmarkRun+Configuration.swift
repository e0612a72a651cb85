extension BenchmarkRun {
    /// What the benchmark runs, and how big.
    package struct Configuration: Sendable {
        /// Orders per scenario.
        package var orders: Int
        /// Daemon process counts to try.
        package var daemonCounts: [Int]
        /// Stand-in latencies to try, in milliseconds.
        package var appleLatencies: [Int]
        /// Apple requests in flight over all daemons; each daemon gets its share as `RECEIPTD_CONCURRENCY`.
        package var totalConcurrency: Int
        /// pgbench clients for the database ceiling.
        package var ceilingClients: Int
        /// Seconds pgbench runs.
        package var ceilingSeconds: Int
        /// Single orders, spaced out, for the idle latency (0 skips it).
        package var idleSamples: Int
        /// Replaced in-flight orders, for the replace latency (0 skips it).
        package var replaceSamples: Int
        /// A scenario that has not settled after this many seconds fails the run.
        package var scenarioTimeLimit: Double
        /// Another `receiptd` executable (an earlier build) whose daemons run every scenario too, just before
        /// this build's, on the same machine and database server, each on a database its own `migrate` made:
        /// a comparison within one run.
        package var baseline: String?
        /// Orders in the console row's database (0 skips the row).
        package var consoleOrders: Int
        /// Times each scenario runs, the builds alternating; the table gives each figure's median.
        package var runs: Int
        /// Only the console row: no scenario, no ceiling (a quick check of that row).
        package var consoleOnly: Bool
        /// Subscriptions in the database of a successful game's size (0 skips its rows).
        package var subscriptions: Int
        /// Only the rows at a successful game's size: no other scenario, no ceiling.
        package var sizeOnly: Bool
        /// Renewals in each store's renewal storm at a successful game's size (0 skips the storms).
        package var renewals: Int

        /// Creates a configuration; the defaults are the scenarios.
        package init(
            orders: Int = 20_000,
            daemonCounts: [Int] = [1, 2, 4],
            appleLatencies: [Int] = [0, 250],
            totalConcurrency: Int = 1_024,
            ceilingClients: Int = 16,
            ceilingSeconds: Int = 15,
            idleSamples: Int = 30,
            replaceSamples: Int = 10,
            scenarioTimeLimit: Double = 900,
            baseline: String? = nil,
            consoleOrders: Int = 1_000_000,
            consoleOnly: Bool = false,
            subscriptions: Int = 1_000_000,
            sizeOnly: Bool = false,
            renewals: Int = 50_000,
            runs: Int = 1
        ) {
            self.renewals = renewals
            self.subscriptions = subscriptions
            self.sizeOnly = sizeOnly
            self.runs = max(1, runs)
            self.consoleOrders = consoleOrders
            self.consoleOnly = consoleOnly
            self.baseline = baseline
            self.orders = orders
            self.daemonCounts = daemonCounts
            self.appleLatencies = appleLatencies
            self.totalConcurrency = totalConcurrency
            self.ceilingClients = ceilingClients
            self.ceilingSeconds = ceilingSeconds
            self.idleSamples = idleSamples
            self.replaceSamples = replaceSamples
            self.scenarioTimeLimit = scenarioTimeLimit
        }
    }
}
