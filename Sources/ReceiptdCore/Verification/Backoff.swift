/// Exponential backoff with equal jitter.
///
/// The delay before attempt n+1 centres on `min(maximum, base · 2^(n-1))`: half of that is fixed,
/// the other half drawn at random, so retries of many jobs spread out instead of arriving together.
package struct Backoff: Sendable, Equatable {
    /// Seconds before the second attempt, before jitter.
    package var base: Double
    /// Upper bound on any delay, in seconds.
    package var maximum: Double

    /// Creates a backoff; `base` and `maximum` are seconds and must not be negative.
    package init(base: Double, maximum: Double) {
        self.base = base
        self.maximum = maximum
    }

    /// The ceiling for the delay after `attempt` failed attempts (1-based).
    package func ceiling(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        // 2^64 overflows nothing in Double, and min() keeps it at the cap.
        return min(maximum, base * pow2(exponent))
    }

    /// The delay after `attempt` failed attempts, `unitRandom` in [0, 1] picking where in the jitter band it falls.
    package func delay(afterAttempt attempt: Int, unitRandom: Double) -> Double {
        let ceiling = ceiling(afterAttempt: attempt)
        let fraction = min(1, max(0, unitRandom.isFinite ? unitRandom : 0))
        return ceiling / 2 + ceiling / 2 * fraction
    }

    /// The delay with a fresh random draw.
    package func delay(afterAttempt attempt: Int) -> Double {
        delay(afterAttempt: attempt, unitRandom: Double.random(in: 0...1))
    }

    private func pow2(_ exponent: Double) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
