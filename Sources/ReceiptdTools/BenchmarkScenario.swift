import ReceiptdCore
/// One benchmark scenario's measurements: some daemons, one Apple latency, a batch of orders.
public struct BenchmarkScenario: Sendable, Codable {
    /// Daemon processes.
    public var daemons: Int
    /// The stand-in's latency per call, in milliseconds.
    public var appleLatencyMilliseconds: Int
    /// `RECEIPTD_CONCURRENCY` of each daemon (they add up to the total in flight).
    public var concurrencyPerDaemon: Int
    /// Orders settled.
    public var orders: Int
    /// Seconds from the first enqueue to the last outcome.
    public var seconds: Double
    /// Orders per second over that span.
    public var ordersPerSecond: Double
    /// Orders per second the load generator enqueued at (when close to `ordersPerSecond`, enqueueing was the bound).
    public var enqueuedPerSecond: Double
    /// Attempts that failed transiently and were retried (connection trouble with the stand-in, mostly).
    public var retries: Int
    /// Enqueue (`orders.created_at`) to outcome (`outcome_at`), in milliseconds.
    public var latency: LatencySummary
    /// Which receiptd ran: `this` build, or the `baseline` executable measured beside it.
    public var build: String
    /// Daemon CPU seconds (user + system, all daemons) per 1,000 orders.
    public var cpuSecondsPer1000Orders: Double
    /// PostgreSQL's CPU seconds (the postmaster and every backend) per 1,000 orders, over the load.
    public var postgresCPUSecondsPer1000Orders: Double
    /// The benchmark process's CPU seconds per 1,000 orders over the load: the stand-in App Store and the load
    /// generator, which share it.
    public var standInCPUSecondsPer1000Orders: Double
    /// Largest peak RSS (`VmHWM`) of any daemon, in MiB.
    public var peakRSSMebibytes: Double
    /// Whether every outcome matched the mix.
    public var correct: Bool
    /// What the orders carried: `receipt` (verifyReceipt), `transaction` (signed transactions, verified offline) or
    /// `google_purchase` (Google Play purchase tokens).
    public var kind: JobKind = .receipt

    /// One line for progress output.
    public var line: String {
        "\(build)\(kind == .receipt ? "" : " (\(kind.rawValue))"): \(daemons) daemon(s), Apple \(appleLatencyMilliseconds) ms: \(BenchmarkReport.format(ordersPerSecond)) orders/s, "
            + "latency p50/p90/p99/max \(latency.text) ms\(correct ? "" : ", OUTCOMES WRONG")"
    }
}
