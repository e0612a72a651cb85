import NIOCore
import NIOHTTP1

extension MetricsServer {
    /// Answers the requests of one connection, one at a time, until the client or the server closes it.
    func serve(_ connection: Connection) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                    case .body:
                        continue  // No route takes a body.
                    case .end:
                        guard let request = head else { continue }
                        head = nil
                        let answer = await answer(to: request)
                        try await write(answer, for: request, to: outbound)
                        if !request.isKeepAlive { return }
                    }
                }
            }
        } catch {
            logger.debug("metrics connection ended", metadata: [LogKey.error: "\(error)"])
        }
    }

    /// Routes a request.
    func answer(to request: HTTPRequestHead) async -> Answer {
        guard request.method == .GET || request.method == .HEAD else {
            return Answer(.methodNotAllowed, "method not allowed\n")
        }
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch path {
        case "/metrics":
            var answer = Answer(.ok, "")
            answer.contentType = "text/plain; version=0.0.4; charset=utf-8"
            answer.body = registry.emitToBuffer()
            return answer
        case "/healthz":
            return Answer(.ok, "ok\n")
        case "/readyz":
            return await readiness() ? Answer(.ok, "ready\n") : Answer(.serviceUnavailable, "database not answering\n")
        default:
            return Answer(.notFound, "not found\n")
        }
    }

    private func write(
        _ answer: Answer,
        for request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: answer.contentType)
        headers.add(name: "content-length", value: String(answer.body.count))
        headers.add(name: "cache-control", value: "no-store")
        if !request.isKeepAlive { headers.add(name: "connection", value: "close") }
        var parts: [HTTPServerResponsePart] = [
            .head(HTTPResponseHead(version: request.version, status: answer.status, headers: headers))
        ]
        if request.method != .HEAD && !answer.body.isEmpty {
            parts.append(.body(.byteBuffer(ByteBuffer(bytes: answer.body))))
        }
        parts.append(.end(nil))
        try await outbound.write(contentsOf: parts)
    }
}
