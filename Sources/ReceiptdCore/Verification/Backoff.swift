/// Exponential backoff with equal jitter.
///
/// The delay before attempt n+1 centres on `min(maximum, base · 2^(n-1))`: half of that is fixed,
/// the other half drawn at random, so retries of many jobs spread out instead of arriving together.
package struct Backoff: Sendable, Equatable {
    /// The delay before the second attempt, before jitter (`RECEIPTD_BACKOFF_BASE`).
    package var base: Duration = .seconds(2)
    /// Upper bound on any delay (`RECEIPTD_BACKOFF_MAX`).
    package var maximum: Duration = .seconds(3600)

    /// Creates the documented default backoff: 2 s, doubling up to an hour.
    package init() {}

    /// Creates a backoff; neither may be negative.
    package init(base: Duration, maximum: Duration) {
        self.base = base
        self.maximum = maximum
    }

    /// The ceiling for the delay after `attempt` failed attempts (1-based).
    package func ceiling(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        // 2^64 overflows nothing in Double, and min() keeps it at the cap.
        let uncapped = base.seconds * pow2(exponent)
        return uncapped < maximum.seconds ? .seconds(uncapped) : maximum
    }

    /// The delay after `attempt` failed attempts, `unitRandom` in [0, 1] picking where in the jitter band it falls.
    package func delay(afterAttempt attempt: Int, unitRandom: Double) -> Duration {
        let ceiling = ceiling(afterAttempt: attempt)
        let fraction = min(1, max(0, unitRandom.isFinite ? unitRandom : 0))
        // Duration × Double goes through a Double and may round a few attoseconds past the band.
        return min(ceiling / 2 + ceiling / 2 * fraction, ceiling)
    }

    /// The delay with a fresh random draw.
    package func delay(afterAttempt attempt: Int) -> Duration {
        delay(afterAttempt: attempt, unitRandom: Double.random(in: 0...1))
    }

    private func pow2(_ exponent: Double) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
