import Foundation

extension SplitMix64 {
    /// A standard normal draw (Box–Muller), for the log-normal latency.
    mutating func nextStandardNormal() -> Double {
        // 1 − u keeps the logarithm's argument in (0, 1].
        let u1 = 1 - nextUnitInterval()
        let u2 = nextUnitInterval()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
