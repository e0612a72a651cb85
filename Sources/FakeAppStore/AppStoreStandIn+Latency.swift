import Foundation

extension AppStoreStandIn {
    /// How long the stand-in waits before answering a call, on top of any
    /// `delay_ms` the synthetic receipt or its script asks for.
    package enum Latency: Sendable, Equatable {
        /// Every call waits exactly this long.
        case fixed(milliseconds: Int)
        /// Every call waits a duration drawn uniformly from the closed range
        /// (using the seeded generator, so runs are repeatable).
        case uniform(minMilliseconds: Int, maxMilliseconds: Int)
        /// Every call waits a log-normally distributed duration with this median and 99th percentile
        /// (seeded too). Real network latency has this shape: most calls near the median, a long tail.
        case logNormal(medianMilliseconds: Double, p99Milliseconds: Double)

        /// The 99th percentile of the standard normal distribution.
        static let normalP99 = 2.326

        /// Draws one call's wait, in whole milliseconds (never negative).
        func draw(using generator: inout SplitMix64) -> Int {
            switch self {
            case .fixed(let milliseconds):
                return max(0, milliseconds)
            case .uniform(let lower, let upper):
                return max(0, generator.nextInteger(between: lower, and: upper))
            case .logNormal(let median, let p99):
                guard median > 0 else { return 0 }
                // p99 = median · e^(σ · 2.326), so σ follows from the two numbers given.
                let sigma = max(0, log(max(p99, median) / median) / Self.normalP99)
                let value = median * exp(sigma * generator.nextStandardNormal())
                return max(0, Int(value.rounded()))
            }
        }
    }
}
