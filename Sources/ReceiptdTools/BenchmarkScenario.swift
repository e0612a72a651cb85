import ReceiptdCore

/// One benchmark scenario's measurements: some daemons, one Apple latency, a batch of orders.
package struct BenchmarkScenario: Sendable, Codable {
    /// Daemon processes.
    package var daemons: Int
    /// The stand-in's latency per call, in milliseconds.
    package var appleLatencyMilliseconds: Int
    /// `RECEIPTD_CONCURRENCY` of each daemon (they add up to the total in flight).
    package var concurrencyPerDaemon: Int
    /// Orders settled.
    package var orders: Int
    /// Seconds from the first enqueue to the last outcome.
    package var seconds: Double
    /// Orders per second over that span.
    package var ordersPerSecond: Double
    /// Orders per second the load generator enqueued at (when close to `ordersPerSecond`, enqueueing was the bound).
    package var enqueuedPerSecond: Double
    /// Attempts that failed transiently and were retried (connection trouble with the stand-in, mostly).
    package var retries: Int
    /// Enqueue (`orders.created_at`) to outcome (`outcome_at`), in milliseconds.
    package var latency: LatencySummary
    /// Which receiptd ran: `this` build, or the `baseline` executable measured beside it.
    package var build: String
    /// Daemon CPU seconds (user + system, all daemons) per 1,000 orders.
    package var cpuSecondsPer1000Orders: Double
    /// PostgreSQL's CPU seconds (the postmaster and every backend) per 1,000 orders, over the load.
    package var postgresCPUSecondsPer1000Orders: Double
    /// The benchmark process's CPU seconds per 1,000 orders over the load: the stand-in App Store and the load
    /// generator, which share it.
    package var standInCPUSecondsPer1000Orders: Double
    /// Largest peak RSS (`VmHWM`) of any daemon, in MiB.
    package var peakRSSMebibytes: Double
    /// Whether every outcome matched the mix.
    package var correct: Bool
    /// What the orders carried: `receipt` (verifyReceipt), `transaction` (signed transactions, verified offline) or
    /// `google_purchase` (Google Play purchase tokens).
    package var kind: JobKind = .receipt
    /// The subscriptions of the seeded database it ran on (issue #48: the scenarios at a successful game's size);
    /// nil for a fresh, empty database of its own.
    package var seededSubscriptions: Int? = nil

    /// What the orders carried, and `(seeded)` on the seeded database: the table's jobs cell.
    package var jobs: String {
        kind.rawValue + (seededSubscriptions == nil ? "" : " (seeded)")
    }

    /// One line for progress output.
    package var line: String {
        "\(build)\(kind == .receipt && seededSubscriptions == nil ? "" : " (\(jobs))"): \(daemons) daemon(s), Apple \(appleLatencyMilliseconds) ms: \(BenchmarkReport.format(ordersPerSecond)) orders/s, "
            + "latency p50/p90/p99/max \(latency.text) ms\(correct ? "" : ", OUTCOMES WRONG")"
    }
}
