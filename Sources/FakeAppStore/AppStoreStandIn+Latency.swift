extension AppStoreStandIn {
    /// How long the stand-in waits before answering a call, on top of any
    /// `delay_ms` the synthetic receipt or its script asks for.
    public enum Latency: Sendable, Equatable {
        /// Every call waits exactly this long.
        case fixed(milliseconds: Int)
        /// Every call waits a duration drawn uniformly from the closed range
        /// (using the seeded generator, so runs are repeatable).
        case uniform(minMilliseconds: Int, maxMilliseconds: Int)
    }
}
