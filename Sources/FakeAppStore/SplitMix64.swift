/// A tiny seeded generator (SplitMix64): fast and repeatable, which is all the
/// stand-in's fault and latency draws need.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence at `seed`; equal seeds give equal sequences.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A uniform draw from `0 ..< 1`, built from the top 53 bits so every value is exact.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform draw from the closed range `lower ... upper` (bounds in either order).
    mutating func nextInteger(between lower: Int, and upper: Int) -> Int {
        let low = min(lower, upper)
        let high = max(lower, upper)
        let span = UInt64(high - low) + 1
        // Modulo bias is irrelevant for latency spreads of a few thousand values.
        return low + Int(next() % span)
    }
}
