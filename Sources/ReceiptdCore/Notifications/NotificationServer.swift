import Logging
import ServiceLifecycle

/// Serves the stores' notification endpoints (`POST /notifications/apple`, `RECEIPTD_NOTIFICATIONS_ADDR`): each
/// request's body goes to its store's `NotificationRoute`, and the store hears 200 only once the notification is
/// committed. The connection limits and the request deadline are the metrics server's; bodies stop at
/// each route's `bodyLimit`.
///
/// A `Service`: `run()` binds, serves until graceful shutdown or cancellation, then closes every connection.
package final class NotificationServer: Service, Sendable, CustomStringConvertible {
    private let configuration: MetricsServer.Configuration
    let routes: [String: any NotificationRoute]
    let logger: Logger
    let metrics: ReceiptdMetrics
    let refusals: RefusalLog
    private let endpoint: HTTPEndpoint

    /// Creates a server; nothing is bound until `run()`.
    ///
    /// - Parameters:
    ///   - configuration: where to listen, how many connections at once, the deadline for each request.
    ///   - routes: one per store, by path.
    ///   - trustedProxies: the proxies whose forwarded client, not themselves, is the peer the per-peer limit
    ///     counts (`RECEIPTD_TRUSTED_PROXIES`).
    ///   - refusalLogInterval: each cause of refusal is logged at most once per interval.
    package init(
        configuration: MetricsServer.Configuration,
        routes: [any NotificationRoute],
        trustedProxies: TrustedProxies = TrustedProxies(),
        logger: Logger,
        metrics: ReceiptdMetrics = ReceiptdMetrics(),
        refusalLogInterval: Duration = .seconds(60)
    ) {
        self.configuration = configuration
        self.routes = Dictionary(routes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.logger = logger
        self.metrics = metrics
        let refusals = RefusalLog(interval: refusalLogInterval)
        self.refusals = refusals
        // Verifying orders matters more: the daemon keeps running, and the catch-up reads what Apple sent meanwhile
        // from its notification history.
        endpoint = HTTPEndpoint(
            configuration: configuration,
            backlog: 256,
            messages: .init(
                unavailable: "cannot serve the notification endpoint (RECEIPTD_NOTIFICATIONS_ADDR); running without it",
                listening: "notification endpoint listening"
            ),
            trustedProxies: trustedProxies,
            refused: { refusal in
                // Before any byte is read, so no store is known: counted and logged apart from the stores' refusals.
                metrics.notificationConnectionRefused(reason: refusal.rawValue)
                if let count = refusals.note("connection \(refusal.rawValue)") {
                    logger.warning(
                        "refused a connection to the notification endpoint: over its limit",
                        metadata: ["reason": "\(refusal.rawValue)", "refused_since_last_line": "\(count)"]
                    )
                }
            }
        )
    }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "NotificationServer(\(configuration.address))" }

    /// The bound port once `run()` is listening (useful with port 0); nil if binding failed.
    package func port() async -> Int? { await endpoint.port() }

    /// Binds and serves until graceful shutdown or cancellation.
    package func run() async throws {
        try await endpoint.run(logger: logger, metadata: ["paths": "\(routes.keys.sorted())"]) {
            try await self.answer(to: $0)
        }
    }
}
