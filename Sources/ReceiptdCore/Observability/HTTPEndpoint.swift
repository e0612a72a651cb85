import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// What the metrics endpoint and the notification intake share: a Hummingbird HTTP/1.1 server bound with the
/// connection limits and the request deadline of `MetricsServer.Configuration` (`ConnectionPolicy`, in the
/// channel pipeline). It serves until graceful shutdown or cancellation and reports the bound port.
final class HTTPEndpoint: Sendable {
    /// The endpoint's two log lines: its address cannot be bound (naming the variable that sets it), and it listens.
    struct Messages: Sendable {
        var unavailable: Logger.Message
        var listening: Logger.Message
    }

    private let configuration: MetricsServer.Configuration
    private let backlog: Int
    private let messages: Messages
    private let trustedProxies: TrustedProxies
    private let refused: @Sendable (ConnectionGate.Refusal) -> Void
    private let listening = ReadinessSignal()
    private let boundPort = Mutex<Int?>(nil)

    /// Creates an endpoint; a request from one of `trustedProxies` counts against the client it forwards for, and
    /// `refused` hears of each connection or forwarded request the limits turn away.
    init(
        configuration: MetricsServer.Configuration,
        backlog: Int,
        messages: Messages,
        trustedProxies: TrustedProxies = TrustedProxies(),
        refused: @escaping @Sendable (ConnectionGate.Refusal) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.backlog = backlog
        self.messages = messages
        self.trustedProxies = trustedProxies
        self.refused = refused
    }

    /// The bound port once `run` is listening (useful with port 0); nil if binding failed.
    func port() async -> Int? {
        await listening.wait()
        return boundPort.withLock { $0 }
    }

    /// Binds and answers each request with `respond` until graceful shutdown or cancellation. An address that
    /// cannot be bound is logged, and the rest of the daemon goes on without this endpoint until it stops.
    func run(
        logger: Logger,
        metadata: Logger.Metadata = [:],
        respond: @escaping @Sendable (Request) async throws -> Response
    ) async throws {
        let gate = ConnectionGate(
            limit: configuration.maxConnections,
            perPeer: configuration.maxConnectionsPerPeer,
            trustedProxies: trustedProxies,
            refused: refused
        )
        let timeout = TimeAmount(configuration.requestTimeout)
        // Hummingbird's own lines (it listens, each request's id) would repeat ours; its warnings and errors stay.
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        let application = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in try await respond(request) },
            server: .http1(
                configuration: .init(additionalChannelHandlers: [ConnectionPolicy(gate: gate, timeout: timeout)])
            ),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil,
                backlog: backlog,
                reuseAddress: true
            ),
            onServerRunning: { channel in self.didBind(port: channel.localAddress?.port, logger: logger, metadata) },
            logger: serverLogger
        )
        do {
            try await application.run()
        } catch  where !listening.isFired {
            logger.error(
                messages.unavailable,
                metadata: [LogKey.listenAddress: "\(configuration.address)", LogKey.error: "\(error)"]
            )
            listening.fire()
            try? await gracefulShutdown()
        } catch  where Task.isCancelled || Task.isShuttingDownGracefully {
            // Stopping is how this service ends; the error only says serving was interrupted.
        }
    }

    /// Once bound: reports the port and logs where it listens.
    private func didBind(port: Int?, logger: Logger, _ metadata: Logger.Metadata) {
        boundPort.withLock { $0 = port }
        listening.fire()
        let address = MetricsServer.Configuration(host: configuration.host, port: port ?? configuration.port).address
        logger.info(messages.listening, metadata: metadata.merging([LogKey.listenAddress: "\(address)"]) { $1 })
    }
}
