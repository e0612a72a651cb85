import Testing

@testable import ReceiptdCore

@Suite struct BackoffTests {
    @Test func ceilingDoublesUpToTheCap() {
        let backoff = Backoff()
        #expect(backoff.ceiling(afterAttempt: 1) == .seconds(2))
        #expect(backoff.ceiling(afterAttempt: 2) == .seconds(4))
        #expect(backoff.ceiling(afterAttempt: 5) == .seconds(32))
        #expect(backoff.ceiling(afterAttempt: 12) == .seconds(3600))
        #expect(backoff.ceiling(afterAttempt: 10_000) == .seconds(3600))
    }

    @Test func delayStaysInTheEqualJitterBand() {
        let backoff = Backoff(base: .seconds(2), maximum: .seconds(3600))
        #expect(backoff.delay(afterAttempt: 3, unitRandom: 0) == .seconds(4))
        #expect(backoff.delay(afterAttempt: 3, unitRandom: 1) == .seconds(8))
        #expect(backoff.delay(afterAttempt: 3, unitRandom: .nan) == .seconds(4))
        #expect(backoff.delay(afterAttempt: 3, unitRandom: 7) == .seconds(8))
    }

    /// Property: for seeded random inputs the delay is within [ceiling/2, ceiling], never negative,
    /// and the ceiling never decreases as attempts grow.
    @Test func propertiesHoldForSeededInputs() {
        var generator = SeededGenerator(seed: 20_261_122)
        for _ in 0..<5_000 {
            let base = Double.random(in: 0...100, using: &generator)
            let maximum = Double.random(in: 0...100_000, using: &generator)
            let backoff = Backoff(base: .seconds(base), maximum: .seconds(maximum))
            let attempt = Int.random(in: -3...2_000, using: &generator)
            let delay = backoff.delay(afterAttempt: attempt, unitRandom: Double.random(in: -1...2, using: &generator))
            let ceiling = backoff.ceiling(afterAttempt: attempt)
            #expect(delay >= .zero && delay >= ceiling / 2 && delay <= ceiling && delay <= backoff.maximum)
            #expect(backoff.ceiling(afterAttempt: attempt + 1) >= ceiling)
        }
    }
}

/// SplitMix64: a fixed seed makes property tests repeatable.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
