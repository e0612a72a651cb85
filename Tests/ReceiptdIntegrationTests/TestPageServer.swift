import NIOCore
import NIOHTTP1
import NIOPosix

/// A plain-HTTP server on 127.0.0.1 that answers every request with ``TestPageHandler``'s page: the ground the
/// WebDriver client's own tests drive chromium on.
final class TestPageServer: Sendable {
    /// The bound port.
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts serving.
    static func start() async throws -> TestPageServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.configureHTTPServerPipeline()
                    try pipeline.addHandler(TestPageHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw CertificateError("the test page server has no local port")
        }
        return TestPageServer(port: port, channel: channel)
    }

    /// Stops accepting connections.
    func stop() async {
        try? await channel.close()
    }
}
