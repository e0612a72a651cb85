import Crypto

extension AppStoreStandIn {
    /// Where the stand-in listens and how badly it behaves.
    ///
    /// The four fault rates are shares of calls (0...1) decided by a single seeded
    /// draw per call, checked in the order reset, unavailable, 21005, timeout; their
    /// sum should not exceed 1. `sandboxRate` is drawn separately, once per receipt.
    /// The rates, the latency and the seed apply to verifyReceipt only; the
    /// `serverAPI…` settings apply to the App Store Server API only.
    package struct Configuration: Sendable {
        /// The `aud` claim Apple requires in App Store Server API tokens.
        package static let serverAPIAudience = "appstoreconnect-v1"
        /// The key id bearer tokens must name unless configured otherwise.
        package static let defaultServerAPIKeyID = "TESTKEY123"
        /// The issuer id bearer tokens must name unless configured otherwise (the one in Apple's examples).
        package static let defaultServerAPIIssuerID = "57246542-96fe-1a63-e053-0824d011072a"

        /// Address to bind; `127.0.0.1` keeps tests off the network.
        package var host: String
        /// Port to bind; `0` lets the kernel pick a free one (see `start()`'s result).
        package var port: Int
        /// When set, a call whose `password` differs is answered `{"status":21004}`.
        package var sharedSecret: String?
        /// Delay applied to every answer.
        package var latency: Latency
        /// Share of calls answered HTTP 503 with an empty body.
        package var unavailableRate: Double
        /// Share of calls answered `{"status":21005}` (Apple's "receipt server unavailable").
        package var status21005Rate: Double
        /// Share of calls whose connection is closed without any answer.
        package var resetRate: Double
        /// Share of calls never answered: the connection stays open until the client gives up.
        package var timeoutRate: Double
        /// Share of receipts treated as sandbox receipts: the production path answers 21007 and
        /// the sandbox path verifies them (drawn at a receipt's first call, then kept).
        package var sandboxRate: Double
        /// Seed for the random draws, so a run can be replayed exactly.
        package var seed: UInt64
        /// Public key that must have signed Server API bearer tokens; `nil` only requires a bearer to be present.
        package var serverAPIKey: P256.Signing.PublicKey?
        /// The `kid` bearer tokens must carry.
        package var serverAPIKeyID: String
        /// The `iss` bearer tokens must carry.
        package var serverAPIIssuerID: String
        /// The `bid` bearer tokens must carry.
        package var serverAPIBundleID: String
        /// Server API calls allowed per rolling second to each endpoint (Get Transaction Info, Get Transaction
        /// History, Get All Subscription Statuses), over both environments; the excess is answered 429
        /// (error 4290000). `nil` means no limit.
        package var serverAPIRateLimit: Int?
        /// Transactions per Get Transaction History page (Apple sends up to 20); small, so tests see pages.
        package var serverAPIHistoryPageSize: Int
        /// Milliseconds every Server API answer waits before it is sent, beyond a script step's own delay.
        package var serverAPILatency: Int

        /// Creates a configuration; the defaults describe a well-behaved,
        /// instant, secret-less stand-in on an ephemeral loopback port that accepts any bearer token.
        package init(
            host: String = "127.0.0.1",
            port: Int = 0,
            sharedSecret: String? = nil,
            latency: Latency = .fixed(milliseconds: 0),
            unavailableRate: Double = 0,
            status21005Rate: Double = 0,
            resetRate: Double = 0,
            timeoutRate: Double = 0,
            sandboxRate: Double = 0,
            seed: UInt64 = 1,
            serverAPIKey: P256.Signing.PublicKey? = nil,
            serverAPIKeyID: String = Configuration.defaultServerAPIKeyID,
            serverAPIIssuerID: String = Configuration.defaultServerAPIIssuerID,
            serverAPIBundleID: String = SyntheticReceipt.defaultBundleID,
            serverAPIRateLimit: Int? = nil,
            serverAPIHistoryPageSize: Int = 2,
            serverAPILatency: Int = 0
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
            self.serverAPIKey = serverAPIKey
            self.serverAPIKeyID = serverAPIKeyID
            self.serverAPIIssuerID = serverAPIIssuerID
            self.serverAPIBundleID = serverAPIBundleID
            self.serverAPIRateLimit = serverAPIRateLimit
            self.serverAPIHistoryPageSize = serverAPIHistoryPageSize
            self.serverAPILatency = serverAPILatency
        }
    }
}
