import Logging

/// Everything `receiptd run` needs, read from the environment (flags are merged in by the CLI first).
package struct ReceiptdSettings: Sendable {
    /// libpq connection string or URI; empty means libpq's defaults and the `PG*` variables.
    package var databaseURL: String
    /// Apple endpoints and secret.
    package var apple: AppleVerifier.Configuration
    /// StoreKit 2: trusted roots and the App Store Server API.
    package var storeKit = StoreKitConfiguration()
    /// Google Play.
    package var googlePlay = GooglePlayConfiguration()
    /// Trust levels and provisional grants.
    package var trust = TrustConfiguration()
    /// Webhooks to the game server; nil (the default) turns them off.
    package var webhooks: WebhookConfiguration?
    /// Daemon behaviour.
    package var daemon: ReceiptDaemon.Configuration
    /// Log level.
    package var logLevel: Logger.Level
    /// Log format; nil picks text at a terminal and JSON otherwise.
    package var logFormat: LogFormat?
    /// Where `/metrics`, `/healthz` and `/readyz` are served; nil turns the endpoint off.
    package var metrics: MetricsServer.Configuration?
    /// Where `POST /notifications/apple` is served (`RECEIPTD_NOTIFICATIONS_ADDR`); nil (the default) turns it off.
    package var notifications: MetricsServer.Configuration?
    /// The proxies in front of the intake whose forwarded client is the peer its per-peer limit counts
    /// (`RECEIPTD_TRUSTED_PROXIES`); none by default.
    package var trustedProxies = TrustedProxies()

    /// Creates settings from values.
    package init(
        databaseURL: String = "",
        apple: AppleVerifier.Configuration = .init(),
        daemon: ReceiptDaemon.Configuration = .init(),
        logLevel: Logger.Level = .info,
        logFormat: LogFormat? = nil,
        metrics: MetricsServer.Configuration? = .init()
    ) {
        self.databaseURL = databaseURL
        self.apple = apple
        self.daemon = daemon
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.metrics = metrics
    }

    /// Reads the variables documented in the Configuration article (ReceiptdCore.docc); unset ones take their defaults.
    package init(environment: [String: String]) throws(ConfigurationError) {
        let reader = EnvironmentReader(environment)
        self.init()
        databaseURL = reader.string("DATABASE_URL") ?? ""
        apple.productionURL = try reader.url("APPLE_VERIFY_URL") ?? apple.productionURL
        apple.sandboxURL = try reader.url("APPLE_SANDBOX_VERIFY_URL") ?? apple.sandboxURL
        apple.sharedSecret = try Self.sharedSecret(reader)
        apple.requestTimeout =
            try reader.seconds("RECEIPTD_APPLE_TIMEOUT", positive: true, maximum: Bounds.appleTimeout)
            ?? apple.requestTimeout
        // Without it any app's receipt, a sandbox tester's free one included, would deliver goods.
        guard let bundleID = reader.string("APPLE_BUNDLE_ID"), !bundleID.isEmpty else {
            throw ConfigurationError(
                variable: "APPLE_BUNDLE_ID",
                problem: "is required: the bundle id of the app whose receipts this daemon verifies"
            )
        }
        daemon.expectedBundleID = bundleID
        storeKit = try Self.storeKit(reader)
        googlePlay = try Self.googlePlay(reader)
        trust = try Self.trust(reader)
        webhooks = try Self.webhooks(reader)
        daemon.refunds = try Self.refunds(reader)
        daemon.sandbox = try reader.choice("RECEIPTD_SANDBOX", SandboxPolicy.self) ?? daemon.sandbox
        daemon.subscriptionRestore =
            try reader.choice("RECEIPTD_SUBSCRIPTION_RESTORE", SubscriptionRestore.self) ?? daemon.subscriptionRestore
        daemon.unclaimedSince = try reader.instant("RECEIPTD_UNCLAIMED_SINCE")
        daemon.concurrency =
            try reader.integer("RECEIPTD_CONCURRENCY", minimum: 1, maximum: Bounds.concurrency) ?? daemon.concurrency
        daemon.databaseConnections =
            try reader.integer("RECEIPTD_DB_CONNECTIONS", minimum: 1, maximum: Bounds.databaseConnections)
            ?? daemon.databaseConnections
        daemon.maxAttempts =
            try reader.integer("RECEIPTD_MAX_ATTEMPTS", minimum: 1, maximum: Bounds.maxAttempts) ?? daemon.maxAttempts
        daemon.backoff.base =
            try reader.seconds("RECEIPTD_BACKOFF_BASE", maximum: Bounds.backoff)
            ?? daemon.backoff.base
        daemon.backoff.maximum =
            try reader.seconds("RECEIPTD_BACKOFF_MAX", maximum: Bounds.backoff)
            ?? daemon.backoff.maximum
        daemon.pollInterval =
            try reader.seconds("RECEIPTD_POLL_INTERVAL", positive: true, maximum: Bounds.pollInterval)
            ?? daemon.pollInterval
        daemon.purchaseSkew =
            try reader.seconds("RECEIPTD_PURCHASE_SKEW", maximum: Bounds.purchaseSkew)
            ?? daemon.purchaseSkew
        daemon.lease =
            try reader.seconds("RECEIPTD_LEASE", positive: true, maximum: Bounds.lease)
            ?? daemon.lease
        daemon.shutdownGrace =
            try reader.seconds("RECEIPTD_SHUTDOWN_GRACE", maximum: Bounds.shutdownGrace)
            ?? daemon.shutdownGrace
        daemon.retention =
            try reader.duration("RECEIPTD_RETENTION", maximum: Bounds.retention)
            ?? daemon.retention
        if let interval = try reader.duration(
            "RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL",
            maximum: Bounds.subscriptionReadRetryInterval
        ) {
            // More often would spend the Server API's budget on reads the store keeps refusing.
            guard interval >= .seconds(60) else {
                throw ConfigurationError(
                    variable: "RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL",
                    problem: "must be at least 1m"
                )
            }
            daemon.subscriptionReadRetryInterval = interval
        }
        logLevel = try reader.logLevel("RECEIPTD_LOG_LEVEL") ?? logLevel
        logFormat = try reader.logFormat("RECEIPTD_LOG_FORMAT")
        metrics = try reader.listenAddress("RECEIPTD_METRICS_ADDR", fallback: MetricsServer.Configuration())
        notifications = try reader.listenAddress("RECEIPTD_NOTIFICATIONS_ADDR", fallback: nil)
        trustedProxies = try reader.trustedProxies("RECEIPTD_TRUSTED_PROXIES")
        // A webhook event's claim lapses with the daemon's other leases, but never before its call could end.
        if let timeout = webhooks?.timeout { webhooks?.lease = max(daemon.lease, timeout * 2) }
        if daemon.lease <= .seconds(apple.requestTimeout.components.seconds) {
            throw ConfigurationError(
                variable: "RECEIPTD_LEASE",
                problem: "must be longer than the Apple request timeout (\(apple.requestTimeout))"
            )
        }
    }

    /// `APPLE_SHARED_SECRET`, or the contents of the file `APPLE_SHARED_SECRET_FILE` names (systemd credentials).
    private static func sharedSecret(_ reader: EnvironmentReader) throws(ConfigurationError) -> String? {
        let inline = reader.string("APPLE_SHARED_SECRET")
        guard let fromFile = try reader.secretFile("APPLE_SHARED_SECRET_FILE") else { return inline }
        guard inline == nil else {
            throw ConfigurationError(
                variable: "APPLE_SHARED_SECRET_FILE",
                problem: "set it or APPLE_SHARED_SECRET, not both"
            )
        }
        return fromFile
    }
}
