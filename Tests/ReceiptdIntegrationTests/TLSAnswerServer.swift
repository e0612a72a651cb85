import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 presenting a given certificate and answering every request with a
/// fixed JSON body: an Apple endpoint whose certificate the test controls.
final class TLSAnswerServer: Sendable {
    /// The bound port.
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// The verifyReceipt URL, by host name, so that the client checks the name `localhost`.
    var url: String { "https://localhost:\(port)/verifyReceipt" }

    /// Starts serving with the PEM certificate and key at the given paths.
    static func start(
        certificateFile: String,
        keyFile: String,
        body: String = #"{"status":21003}"#
    ) async throws -> TLSAnswerServer {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        )
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLServerHandler(context: context))
                    try pipeline.configureHTTPServerPipeline()
                    try pipeline.addHandler(FixedAnswerHandler(body: body))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw CertificateError("the TLS test server has no local port")
        }
        return TLSAnswerServer(port: port, channel: channel)
    }

    /// Stops accepting connections.
    func stop() async {
        try? await channel.close()
    }
}
