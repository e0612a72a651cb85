import Logging
import Prometheus
import ServiceLifecycle

/// Serves `/metrics` (Prometheus text), `/healthz` (the process runs) and `/readyz` (the database answers).
///
/// A `Service`: `run()` binds, serves until graceful shutdown or cancellation, then closes every connection.
package final class MetricsServer: Service, Sendable, CustomStringConvertible {
    private let configuration: Configuration
    let registry: PrometheusCollectorRegistry
    let readiness: @Sendable () async -> Bool
    let logger: Logger
    private let endpoint: HTTPEndpoint

    /// Creates a server; nothing is bound until `run()`.
    ///
    /// - Parameters:
    ///   - registry: what `/metrics` exports.
    ///   - readiness: `/readyz` answers 200 when it returns true, 503 otherwise.
    package init(
        configuration: Configuration = .init(),
        registry: PrometheusCollectorRegistry,
        logger: Logger,
        readiness: @escaping @Sendable () async -> Bool
    ) {
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.readiness = readiness
        // Orders matter more than metrics: the daemon keeps verifying without its endpoints.
        endpoint = HTTPEndpoint(
            configuration: configuration,
            backlog: 64,
            messages: .init(
                unavailable: "cannot serve metrics and health endpoints (RECEIPTD_METRICS_ADDR); running without them",
                listening: "metrics and health endpoints listening"
            )
        )
    }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "MetricsServer(\(configuration.address))" }

    /// The bound port once `run()` is listening (useful with port 0); nil if binding failed.
    package func port() async -> Int? { await endpoint.port() }

    /// Binds and serves until graceful shutdown or cancellation.
    package func run() async throws {
        try await endpoint.run(logger: logger) { await self.answer(to: $0) }
    }
}
