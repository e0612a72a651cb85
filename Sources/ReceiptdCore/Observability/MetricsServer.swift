import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// Serves `/metrics` (Prometheus text), `/healthz` (the process runs) and `/readyz` (the database answers).
///
/// A `Service`: `run()` binds, serves until graceful shutdown or cancellation, then closes every connection.
package final class MetricsServer: Service, Sendable, CustomStringConvertible {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private let configuration: Configuration
    let registry: PrometheusCollectorRegistry
    let readiness: @Sendable () async -> Bool
    let logger: Logger
    private let listening = ReadinessSignal()
    private let boundPort = Mutex<Int?>(nil)

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
    }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "MetricsServer(\(configuration.address))" }

    /// The bound port once `run()` is listening (useful with port 0); nil if binding failed.
    package func port() async -> Int? {
        await listening.wait()
        return boundPort.withLock { $0 }
    }

    /// Binds and serves until graceful shutdown or cancellation.
    package func run() async throws {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await bind()
        } catch {
            // Orders matter more than metrics: the daemon keeps verifying without its endpoints.
            logger.error(
                "cannot serve metrics and health endpoints (RECEIPTD_METRICS_ADDR); running without them",
                metadata: [LogKey.listenAddress: "\(configuration.address)", LogKey.error: "\(error)"]
            )
            listening.fire()
            try? await gracefulShutdown()
            return
        }
        boundPort.withLock { $0 = server.channel.localAddress?.port }
        listening.fire()
        let address = Configuration(
            host: configuration.host,
            port: server.channel.localAddress?.port ?? configuration.port
        )
        logger.info("metrics and health endpoints listening", metadata: [LogKey.listenAddress: "\(address.address)"])
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                }
            }
        } catch  where Task.isCancelled || Task.isShuttingDownGracefully {
            // Stopping is how this service ends; the error only says the accept loop was interrupted.
        }
    }

    private func bind() async throws -> NIOAsyncChannel<Connection, Never> {
        let gate = ConnectionGate(limit: configuration.maxConnections)
        let timeout = TimeAmount(configuration.requestTimeout)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Every open connection holds a file descriptor the database pool may need, so one over
                    // the limit gets no time at all: it is closed as soon as it is open. Failing this initializer
                    // instead would end the accept loop.
                    let admitted = gate.admit(channel)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestDeadline(timeout: admitted ? timeout : .zero))
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }
}
