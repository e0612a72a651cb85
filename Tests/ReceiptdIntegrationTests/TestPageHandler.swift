import NIOCore
import NIOHTTP1

/// Answers every request with a small HTML page: a title, the request's path and query (escaped) in `#uri`, a GET
/// form (`#q`, `#go`) that comes back to it, a list of three items, and two cookies, one of them `HttpOnly`.
final class TestPageHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let uri = head.uri.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        let body = """
            <!doctype html>
            <html><head><title>Test page</title></head>
            <body>
            <h1 id="uri">\(uri)</h1>
            <form id="form" method="get" action="/answer">
            <input id="q" name="q" value=""><button id="go" type="submit" data-kind="submit">Go</button>
            </form>
            <ul id="items"><li>one</li><li>two</li><li>&lt;three&gt;</li></ul>
            </body></html>
            """
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Set-Cookie", value: "visible=seen; Path=/; SameSite=Lax")
        headers.add(name: "Set-Cookie", value: "hidden=secret; Path=/; HttpOnly; SameSite=Strict")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil
        )
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
