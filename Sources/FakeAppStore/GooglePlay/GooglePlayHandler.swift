import Logging
import NIOCore
import NIOHTTP1

/// Serves one connection of the stand-in Google Play: collects each request, asks the stand-in for the answer,
/// and writes it after its delay (cancelled if the client leaves first).
///
/// Sits behind NIO's pipelining handler, so it sees one request at a time even when a client pipelines.
final class GooglePlayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let standIn: GooglePlayStandIn
    private let logger: Logger
    private var requestHead: HTTPRequestHead?
    private var requestBody = ByteBuffer()
    /// The delayed answer pending on this connection.
    private var waitingAnswer: Scheduled<Void>?

    init(standIn: GooglePlayStandIn, logger: Logger) {
        self.standIn = standIn
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
            requestBody.clear()
        case .body(var chunk):
            requestBody.writeBuffer(&chunk)
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            if head.method == .POST, head.uri.split(separator: "?").first == "/fake/rtdn" {
                answerPush(head, body: String(buffer: requestBody), context: context)
                return
            }
            let answer = standIn.answer(
                method: head.method,
                uri: head.uri,
                authorization: head.headers.first(name: "authorization"),
                body: String(buffer: requestBody)
            )
            logger.trace("Google Play call", metadata: ["uri": "\(head.uri)", "status": "\(answer.status)"])
            guard answer.delayMilliseconds > 0 else {
                deliver(answer, for: head, context: context)
                return
            }
            // Timer on the connection's own loop: no blocking, no thread hop.
            waitingAnswer = context.eventLoop.assumeIsolated().scheduleTask(
                in: .milliseconds(Int64(answer.delayMilliseconds))
            ) {
                self.waitingAnswer = nil
                self.deliver(answer, for: head, context: context)
            }
        }
    }

    /// `POST /fake/rtdn`: pushes off the event loop, then answers on it.
    private func answerPush(_ head: HTTPRequestHead, body: String, context: ChannelHandlerContext) {
        let standIn = self.standIn
        let promise = context.eventLoop.makePromise(of: GooglePlayAnswer.self)
        promise.completeWithTask { await standIn.fakeRTDN(body: body) }
        promise.futureResult.assumeIsolated().whenSuccess { answer in
            self.deliver(answer, for: head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        waitingAnswer?.cancel()
        waitingAnswer = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    /// Writes a complete answer, keeping the connection open when the client allows it.
    private func deliver(_ answer: GooglePlayAnswer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard !answer.closeConnection else {
            context.close(promise: nil)
            return
        }
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        if !answer.body.isEmpty {
            headers.add(name: "content-type", value: answer.contentType)
        }
        headers.add(name: "content-length", value: String(answer.body.utf8.count))
        headers.add(contentsOf: answer.headers)
        if !keepAlive {
            headers.add(name: "connection", value: "close")
        }
        let responseHead = HTTPResponseHead(
            version: head.version,
            status: HTTPResponseStatus(statusCode: answer.status),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if !answer.body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: answer.body)))),
                promise: nil
            )
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            // Close only once the bytes are out, or a full socket buffer would drop them.
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
