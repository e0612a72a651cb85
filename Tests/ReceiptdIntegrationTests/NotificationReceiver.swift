import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A plain HTTP server on 127.0.0.1 standing in for the notification intake: keeps every body posted to it and
/// answers each with `status`.
final class NotificationReceiver: Sendable {
    /// Keeps the bodies and answers.
    private final class Handler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let receiver: NotificationReceiver
        private let body = Mutex("")

        init(receiver: NotificationReceiver) {
            self.receiver = receiver
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: body.withLock { $0 = "" }
            case .body(let chunk): body.withLock { $0 += String(buffer: chunk) }
            case .end:
                receiver.bodies.withLock { $0.append(body.withLock { $0 }) }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "0")
                let status = HTTPResponseStatus(statusCode: receiver.status)
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                    promise: nil
                )
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    /// The status every post is answered with.
    let status: Int
    /// The bodies posted, in arrival order.
    let bodies = Mutex<[String]>([])
    private let channel = Mutex<(any Channel)?>(nil)
    private let port = Mutex(0)

    private init(status: Int) {
        self.status = status
    }

    /// `http://127.0.0.1:PORT/notifications/apple`.
    var url: String { "http://127.0.0.1:\(port.withLock { $0 })/notifications/apple" }

    /// Starts serving.
    static func start(status: Int = 200) async throws -> NotificationReceiver {
        let receiver = NotificationReceiver(status: status)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(receiver: receiver))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        receiver.port.withLock { $0 = channel.localAddress?.port ?? 0 }
        receiver.channel.withLock { $0 = channel }
        return receiver
    }

    /// Stops accepting connections.
    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }
}
