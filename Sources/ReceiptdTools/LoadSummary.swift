/// What a load run enqueued, and how fast.
package struct LoadSummary: Sendable, Codable {
    /// Prefix of the run's order ids; ``LoadGenerator/waitForOutcomes(of:timeout:progress:)`` follows it.
    package var runID: String
    /// Orders created.
    package var orders: Int
    /// Newer receipts sent for `replace` orders.
    package var replacements: Int
    /// Seconds from the first batch to the last call.
    package var seconds: Double
    /// Orders per second while enqueueing.
    package var ordersPerSecond: Double

    /// One line for a terminal.
    package var summary: String {
        "enqueued \(orders) orders (+\(replacements) replacements) in \(Self.format(seconds)) s: \(Self.format(ordersPerSecond)) orders/s"
    }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
