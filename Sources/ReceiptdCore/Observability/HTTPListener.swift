import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The listening half that the metrics endpoint and the notification intake share: it binds with the connection
/// limit and the request deadline of `MetricsServer.Configuration`, hands each connection to a server's `serve`
/// until graceful shutdown or cancellation, and reports the bound port.
final class HTTPListener: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The endpoint's two log lines: its address cannot be bound (naming the variable that sets it), and it listens.
    struct Messages: Sendable {
        var unavailable: Logger.Message
        var listening: Logger.Message
    }

    private let configuration: MetricsServer.Configuration
    private let backlog: Int
    private let messages: Messages
    private let listening = ReadinessSignal()
    private let boundPort = Mutex<Int?>(nil)

    init(configuration: MetricsServer.Configuration, backlog: Int, messages: Messages) {
        self.configuration = configuration
        self.backlog = backlog
        self.messages = messages
    }

    /// The bound port once `run` is listening (useful with port 0); nil if binding failed.
    func port() async -> Int? {
        await listening.wait()
        return boundPort.withLock { $0 }
    }

    /// Binds and serves until graceful shutdown or cancellation. An address that cannot be bound is logged, and
    /// the rest of the daemon goes on without this endpoint until it stops.
    func run(
        logger: Logger,
        metadata: Logger.Metadata = [:],
        serve: @escaping @Sendable (Connection) async -> Void
    ) async throws {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await bind()
        } catch {
            logger.error(
                messages.unavailable,
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
            messages.listening,
            metadata: metadata.merging([LogKey.listenAddress: "\(address.address)"]) { $1 }
        )
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await serve(connection) }
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
            .serverChannelOption(.backlog, value: Int32(backlog))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Every open connection holds a file descriptor the database pool may need, so one over
                    // the limit gets no time at all: it is closed as soon as it is open. Failing this initializer
                    // instead would end the accept loop.
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
