import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local stand-in for Apple's legacy `verifyReceipt` endpoints, serving
/// ``SyntheticReceipt``s over HTTP/1.1 with scriptable failures and delays.
///
/// Serves `POST /verifyReceipt` (Production), `POST /sandbox/verifyReceipt`
/// (Sandbox) and `GET /healthz`; anything else is a 404. Every call is logged
/// and available from ``recordedRequests()``.
public final class AppStoreStandIn: Sendable {
    private let configuration: Configuration
    private let logger: Logger
    private let ledger: RequestLedger
    private let connections = ConnectionRegistry()
    /// The listening channel while serving.
    private let listener = Mutex<(any Channel)?>(nil)
    /// The port actually bound, kept after shutdown so URLs stay printable.
    private let boundPort: Mutex<Int?> = Mutex(nil)

    /// Creates a stand-in; nothing is bound until ``start()``.
    public init(configuration: Configuration = .init(), logger: Logger = Logger(label: "fake-appstore")) {
        self.configuration = configuration
        self.logger = logger
        self.ledger = RequestLedger(configuration: configuration)
    }

    /// Binds and starts serving on `MultiThreadedEventLoopGroup.singleton`; returns the bound port.
    ///
    /// Calling it again while serving returns the same port.
    public func start() async throws -> Int {
        if listener.withLock({ $0 != nil }), let port = boundPort.withLock({ $0 }) {
            return port
        }
        let planner = AnswerPlanner(configuration: configuration, ledger: ledger)
        let (connections, logger) = (self.connections, self.logger)
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
                    try pipeline.addHandler(VerifyReceiptHandler(planner: planner, logger: logger))
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        let port = channel.localAddress?.port ?? configuration.port
        listener.withLock { $0 = channel }
        boundPort.withLock { $0 = port }
        logger.info("fake App Store listening", metadata: ["url": "\(productionURL)"])
        return port
    }

    /// Closes the listening channel and every open connection.
    public func shutdown() async throws {
        if let channel = listener.withLock({ $0.take() }) {
            channel.close(promise: nil)
            try await channel.closeFuture.get()
        }
        await connections.closeAll()
    }

    /// Starts, serves until the surrounding task is cancelled, then shuts down. For the CLI.
    public func run() async throws {
        _ = try await start()
        guard let channel = listener.withLock({ $0 }) else { return }
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        try await shutdown()
    }

    /// `http://HOST:PORT/verifyReceipt`; the port is right once ``start()`` returned.
    public var productionURL: String {
        baseURL + "/verifyReceipt"
    }

    /// `http://HOST:PORT/sandbox/verifyReceipt`; the port is right once ``start()`` returned.
    public var sandboxURL: String {
        baseURL + "/sandbox/verifyReceipt"
    }

    /// Every verifyReceipt call received so far, in arrival order.
    public func recordedRequests() -> [RecordedRequest] {
        ledger.records()
    }

    /// Starts (`true`) or ends a simulated outage: while it lasts every call is answered HTTP 503.
    public func setOutage(_ on: Bool) {
        ledger.setOutage(on)
    }

    private var baseURL: String {
        let port = boundPort.withLock { $0 } ?? configuration.port
        // IPv6 literals need brackets inside a URL.
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }
}
