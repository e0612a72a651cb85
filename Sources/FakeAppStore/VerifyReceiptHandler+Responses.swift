import NIOCore
import NIOHTTP1

extension VerifyReceiptHandler {
    /// Writes a planned answer and records what was actually sent.
    func deliver(_ answer: PlannedAnswer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        let ledger = planner.ledger
        switch answer.reply {
        case .appleJSON(let status, let body):
            ledger.recordAnswer(at: answer.recordIndex, appleStatus: status, httpStatus: 200)
            writeResponse(head, status: .ok, contentType: "application/json", body: body, context: context)
        case .emptyHTTP(let status, let retryAfter):
            ledger.recordAnswer(at: answer.recordIndex, appleStatus: nil, httpStatus: status)
            let extraHeaders = retryAfter.map { [("retry-after", $0)] } ?? []
            writeResponse(
                head,
                status: HTTPResponseStatus(statusCode: status),
                extraHeaders: extraHeaders,
                context: context
            )
        case .html(let body):
            ledger.recordAnswer(at: answer.recordIndex, appleStatus: nil, httpStatus: 200)
            writeResponse(head, status: .ok, contentType: "text/html", body: body, context: context)
        case .closeConnection:
            ledger.recordAnswer(at: answer.recordIndex, appleStatus: nil, httpStatus: nil)
            context.close(promise: nil)
        case .neverAnswer:
            // Keep watching the call so the client's eventual hang-up is recorded.
            waitingRecordIndex = answer.recordIndex
        }
    }

    /// Writes a complete response, keeping the connection open when the client allows it.
    func writeResponse(
        _ head: HTTPRequestHead,
        status: HTTPResponseStatus,
        contentType: String? = nil,
        body: String = "",
        extraHeaders: [(String, String)] = [],
        context: ChannelHandlerContext
    ) {
        let keepAlive = head.isKeepAlive
        var headers = HTTPHeaders()
        headers.reserveCapacity(3 + extraHeaders.count)
        if let contentType {
            headers.add(name: "content-type", value: contentType)
        }
        headers.add(name: "content-length", value: String(body.utf8.count))
        headers.add(contentsOf: extraHeaders)
        if !keepAlive {
            headers.add(name: "connection", value: "close")
        }
        let responseHead = HTTPResponseHead(version: head.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if !body.isEmpty {
            let buffer = context.channel.allocator.buffer(string: body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            // Close only once the bytes are out, or a full socket buffer would drop them.
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
