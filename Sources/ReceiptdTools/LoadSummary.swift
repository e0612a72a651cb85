/// What a load run enqueued, and how fast.
public struct LoadSummary: Sendable, Codable {
    /// Prefix of the run's order ids; ``LoadGenerator/waitForOutcomes(of:timeout:progress:)`` follows it.
    public var runID: String
    /// Orders created.
    public var orders: Int
    /// Newer receipts sent for `replace` orders.
    public var replacements: Int
    /// Seconds from the first batch to the last call.
    public var seconds: Double
    /// Orders per second while enqueueing.
    public var ordersPerSecond: Double

    /// One line for a terminal.
    public var summary: String {
        "enqueued \(orders) orders (+\(replacements) replacements) in \(Self.format(seconds)) s: \(Self.format(ordersPerSecond)) orders/s"
    }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
