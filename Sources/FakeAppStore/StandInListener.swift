import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A stand-in's HTTP/1.1 listener on `MultiThreadedEventLoopGroup.singleton`: binds, hands each connection a
/// handler behind NIO's pipelining helper, and on shutdown closes the listener and every open connection.
/// Both stand-ins serve through one.
final class StandInListener: Sendable {
    private let host: String
    private let port: Int
    private let connections = ConnectionRegistry()
    /// The listening channel while serving.
    private let listener = Mutex<(any Channel)?>(nil)
    /// The port actually bound, kept after shutdown so URLs stay printable.
    private let boundPort = Mutex<Int?>(nil)

    /// A listener for `host:port` (0: the kernel picks a free one); nothing is bound until ``start(handler:)``.
    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The bound port while serving, `nil` before ``start(handler:)`` and after ``shutdown()``.
    var servingPort: Int? {
        listener.withLock { $0 != nil } ? boundPort.withLock { $0 } : nil
    }

    /// Binds and serves; `handler` makes each connection's handler, on its event loop. Returns the bound port.
    func start(
        handler: @escaping @Sendable () -> any ChannelInboundHandler & RemovableChannelHandler
    ) async throws -> Int {
        let connections = self.connections
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                connections.register(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try pipeline.addHandler(handler())
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        listener.withLock { $0 = channel }
        boundPort.withLock { $0 = bound }
        return bound
    }

    /// Closes the listening channel and every open connection.
    func shutdown() async throws {
        if let channel = listener.withLock({ $0.take() }) {
            channel.close(promise: nil)
            try await channel.closeFuture.get()
        }
        await connections.closeAll()
    }

    /// Returns when the listener closes, or closes it when the calling task is cancelled. For the CLI.
    func waitUntilClosed() async {
        guard let channel = listener.withLock({ $0 }) else { return }
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// `http://HOST:PORT`; the port is right once ``start(handler:)`` returned.
    var baseURL: String {
        // IPv6 literals need brackets inside a URL.
        let host = host.contains(":") ? "[\(host)]" : host
        return "http://\(host):\(boundPort.withLock { $0 } ?? port)"
    }
}
