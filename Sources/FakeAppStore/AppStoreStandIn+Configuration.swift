extension AppStoreStandIn {
    /// Where the stand-in listens and how badly it behaves.
    ///
    /// The four fault rates are shares of calls (0...1) decided by a single seeded
    /// draw per call, checked in the order reset, unavailable, 21005, timeout; their
    /// sum should not exceed 1. `sandboxRate` is drawn separately, once per receipt.
    public struct Configuration: Sendable {
        /// Address to bind; `127.0.0.1` keeps tests off the network.
        public var host: String
        /// Port to bind; `0` lets the kernel pick a free one (see `start()`'s result).
        public var port: Int
        /// When set, a call whose `password` differs is answered `{"status":21004}`.
        public var sharedSecret: String?
        /// Delay applied to every answer.
        public var latency: Latency
        /// Share of calls answered HTTP 503 with an empty body.
        public var unavailableRate: Double
        /// Share of calls answered `{"status":21005}` (Apple's "receipt server unavailable").
        public var status21005Rate: Double
        /// Share of calls whose connection is closed without any answer.
        public var resetRate: Double
        /// Share of calls never answered: the connection stays open until the client gives up.
        public var timeoutRate: Double
        /// Share of receipts treated as sandbox receipts: the production path answers 21007 and
        /// the sandbox path verifies them (drawn at a receipt's first call, then kept).
        public var sandboxRate: Double
        /// Seed for the random draws, so a run can be replayed exactly.
        public var seed: UInt64

        /// Creates a configuration; the defaults describe a well-behaved,
        /// instant, secret-less stand-in on an ephemeral loopback port.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            sharedSecret: String? = nil,
            latency: Latency = .fixed(milliseconds: 0),
            unavailableRate: Double = 0,
            status21005Rate: Double = 0,
            resetRate: Double = 0,
            timeoutRate: Double = 0,
            sandboxRate: Double = 0,
            seed: UInt64 = 1
        ) {
            self.host = host
            self.port = port
            self.sharedSecret = sharedSecret
            self.latency = latency
            self.unavailableRate = unavailableRate
            self.status21005Rate = status21005Rate
            self.resetRate = resetRate
            self.timeoutRate = timeoutRate
            self.sandboxRate = sandboxRate
            self.seed = seed
        }
    }
}
