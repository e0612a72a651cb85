import Histogram

/// Percentiles of a set of latencies, in milliseconds, taken from an HdrHistogram (3 significant digits).
package struct LatencySummary: Sendable, Codable {
    /// Samples recorded.
    package var count: Int
    /// Median.
    package var p50: Double
    /// 90th percentile.
    package var p90: Double
    /// 99th percentile.
    package var p99: Double
    /// Largest sample.
    package var max: Double

    /// Summarises `seconds` (negative samples, from clock skew, count as 0).
    package init(seconds: [Double]) {
        // Microseconds up to an hour.
        var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        for value in seconds { histogram.record(UInt64(Swift.min(Swift.max(0, value * 1e6), 3_599_000_000))) }
        func milliseconds(_ microseconds: UInt64) -> Double { Double(microseconds) / 1000 }
        count = seconds.count
        p50 = milliseconds(histogram.valueAtPercentile(50))
        p90 = milliseconds(histogram.valueAtPercentile(90))
        p99 = milliseconds(histogram.valueAtPercentile(99))
        max = seconds.isEmpty ? 0 : milliseconds(histogram.max)
    }

    /// `p50/p90/p99/max` in milliseconds, for tables.
    package var text: String {
        [p50, p90, p99, max].map { String(format: $0 >= 100 ? "%.0f" : "%.1f", $0) }.joined(separator: "/")
    }
}
