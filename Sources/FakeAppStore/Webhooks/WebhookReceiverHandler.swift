import Foundation
import NIOCore
import NIOHTTP1

/// Serves one connection of the stand-in webhook receiver (behind NIO's pipelining handler).
final class WebhookReceiverHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let receiver: WebhookReceiverStandIn
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// A delayed answer not yet given.
    private var waitingAnswer: Scheduled<Void>?
    /// The largest body taken; a larger one is answered 413.
    private static let bodyLimit = 1 << 20

    init(receiver: WebhookReceiverStandIn) {
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
        case .body(var chunk):
            if body.readableBytes <= Self.bodyLimit { body.writeBuffer(&chunk) }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            route(requestHead, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        waitingAnswer?.cancel()
        waitingAnswer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.firstIndex(of: "?").map { String(head.uri[..<$0]) } ?? head.uri
        let bytes = Array(body.readableBytesView)
        switch (head.method, path) {
        case (.GET, "/healthz"):
            respond(head, status: 200, body: "ok", context: context)
        case (.GET, "/fake/received"):
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let json = (try? encoder.encode(receiver.received())).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            respond(head, status: 200, body: json, contentType: "application/json", context: context)
        case (.POST, "/fake/script"):
            guard let answers = try? JSONDecoder().decode([WebhookReceiverAnswer].self, from: Data(bytes)) else {
                respond(head, status: 400, body: "expected a JSON array of answers", context: context)
                return
            }
            receiver.script(answers)
            respond(head, status: 204, context: context)
        case (.POST, _) where bytes.count > Self.bodyLimit:
            respond(head, status: 413, context: context)
        case (.POST, _):
            let answer = receiver.take(
                id: head.headers.first(name: "webhook-id"),
                timestamp: head.headers.first(name: "webhook-timestamp"),
                signature: head.headers.first(name: "webhook-signature"),
                body: bytes
            )
            switch answer {
            case .status(let status, let retryAfter):
                respond(head, status: status, retryAfter: retryAfter, context: context)
            case .hang:
                break  // the sender's timeout ends it
            case .delayed(let milliseconds, let status):
                // Timer on the connection's own loop; cancelled if the sender goes away first.
                waitingAnswer = context.eventLoop.assumeIsolated().scheduleTask(
                    in: .milliseconds(Int64(max(0, milliseconds)))
                ) {
                    self.waitingAnswer = nil
                    self.respond(head, status: status, context: context)
                }
            }
        default:
            respond(head, status: 404, context: context)
        }
    }

    private func respond(
        _ head: HTTPRequestHead,
        status: Int,
        body: String = "",
        contentType: String = "text/plain",
        retryAfter: String? = nil,
        context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: contentType)
        headers.add(name: "content-length", value: String(body.utf8.count))
        if let retryAfter { headers.add(name: "retry-after", value: retryAfter) }
        if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
        let responseHead = HTTPResponseHead(
            version: head.version,
            status: HTTPResponseStatus(statusCode: status),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))),
                promise: nil
            )
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
