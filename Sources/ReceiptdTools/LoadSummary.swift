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

    /// A `LIKE` pattern of the run's order ids (`<runID>-…`). Unlike `starts_with`, it walks the orders' primary key
    /// on a bytewise-sorted database (the benchmark's), so a poll on a seeded database does not read millions of
    /// other orders; on any other it reads them all, as `starts_with` would.
    package static func ordersPattern(runID: String) -> String {
        runID.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "-%"
    }

    /// One line for a terminal.
    package var summary: String {
        "enqueued \(orders) orders (+\(replacements) replacements) in \(Self.format(seconds)) s: \(Self.format(ordersPerSecond)) orders/s"
    }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
