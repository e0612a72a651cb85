import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Serves the stores' notification endpoints (`POST /notifications/apple`, `RECEIPTD_NOTIFICATIONS_ADDR`): each
/// request's body goes to its store's `NotificationRoute`, and the store hears 200 only once the notification is
/// committed. The connection limit and the request deadline are the metrics server's; bodies stop at
/// `bodyLimit`.
///
/// A `Service`: `run()` binds, serves until graceful shutdown or cancellation, then closes every connection.
package final class NotificationServer: Service, Sendable, CustomStringConvertible {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The largest body taken (256 KiB); a longer one is answered 400 without being read.
    package static let bodyLimit = 256 * 1024

    private let configuration: MetricsServer.Configuration
    let routes: [String: any NotificationRoute]
    let logger: Logger
    let metrics: ReceiptdMetrics
    let refusals: RefusalLog
    private let listening = ReadinessSignal()
    private let boundPort = Mutex<Int?>(nil)

    /// Creates a server; nothing is bound until `run()`.
    ///
    /// - Parameters:
    ///   - configuration: where to listen, how many connections at once, the deadline for each request.
    ///   - routes: one per store, by path.
    ///   - refusalLogInterval: each cause of refusal is logged at most once per interval.
    package init(
        configuration: MetricsServer.Configuration,
        routes: [any NotificationRoute],
        logger: Logger,
        metrics: ReceiptdMetrics = ReceiptdMetrics(),
        refusalLogInterval: Duration = .seconds(60)
    ) {
        self.configuration = configuration
        self.routes = Dictionary(routes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        self.logger = logger
        self.metrics = metrics
        self.refusals = RefusalLog(interval: refusalLogInterval)
    }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "NotificationServer(\(configuration.address))" }

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
            // Verifying orders matters more: the daemon keeps running, and the catch-up reads what Apple sent
            // meanwhile from its notification history.
            logger.error(
                "cannot serve the notification endpoint (RECEIPTD_NOTIFICATIONS_ADDR); running without it",
                metadata: [LogKey.listenAddress: "\(configuration.address)", LogKey.error: "\(error)"]
            )
            listening.fire()
            try? await gracefulShutdown()
            return
        }
        boundPort.withLock { $0 = server.channel.localAddress?.port }
        listening.fire()
        let address = MetricsServer.Configuration(
            host: configuration.host,
            port: server.channel.localAddress?.port ?? configuration.port
        )
        logger.info(
            "notification endpoint listening",
            metadata: [LogKey.listenAddress: "\(address.address)", "paths": "\(routes.keys.sorted())"]
        )
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
        let gate = MetricsServer.ConnectionGate(limit: configuration.maxConnections)
        let timeout = TimeAmount(configuration.requestTimeout)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // As on the metrics server: one over the limit is closed as soon as it is open.
                    let admitted = gate.admit(channel)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        MetricsServer.RequestDeadline(timeout: admitted ? timeout : .zero)
                    )
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }
}
