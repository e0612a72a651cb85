import Logging
import NIOCore
import NIOHTTP1

extension NotificationServer {
    /// Answers the requests of one connection, one at a time, until the client or the server closes it. A request
    /// the server answers before its body has arrived (no route, over the limit) closes the connection, so the rest
    /// of the body is never read.
    func serve(_ connection: Connection) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var pending: (head: HTTPRequestHead, route: any NotificationRoute, body: [UInt8])?
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        switch routing(head) {
                        case .route(let route):
                            pending = (head, route, [])
                        case .answer(let answer):
                            try await write(answer, version: head.version, close: true, to: outbound)
                            return
                        }
                        if let length = head.headers.first(name: "content-length").flatMap(Int.init),
                            length > pending!.route.bodyLimit
                        {
                            try await refuse(tooLarge(pending!.route, declared: true), pending!.route, head, outbound)
                            return
                        }
                    case .body(let chunk):
                        guard pending != nil else { continue }
                        guard pending!.body.count + chunk.readableBytes <= pending!.route.bodyLimit else {
                            let refusal = tooLarge(pending!.route, declared: false)
                            try await refuse(refusal, pending!.route, pending!.head, outbound)
                            return
                        }
                        pending!.body += chunk.readableBytesView
                    case .end:
                        guard let request = pending else { continue }
                        pending = nil
                        let answer: Answer
                        do throws(NotificationRefusal) {
                            let headers = Dictionary(
                                request.head.headers.map { ($0.name.lowercased(), $0.value) },
                                uniquingKeysWith: { first, _ in first }
                            )
                            switch try await request.route.take(request.body, headers: headers) {
                            case .recorded(let new): answer = Answer(.ok, new ? "recorded\n" : "already recorded\n")
                            case .skipped: answer = Answer(.noContent, "")
                            }
                        } catch {
                            let close = !request.head.isKeepAlive
                            try await refuse(error, request.route, request.head, outbound, close: close)
                            if !request.head.isKeepAlive { return }
                            continue
                        }
                        try await write(
                            answer,
                            version: request.head.version,
                            close: !request.head.isKeepAlive,
                            to: outbound
                        )
                        if !request.head.isKeepAlive { return }
                    }
                }
            }
        } catch {
            logger.debug("notification connection ended", metadata: [LogKey.error: "\(error)"])
        }
    }

    private typealias Answer = MetricsServer.Answer

    /// Where a request goes: to a route, or straight to an answer.
    private enum Routing {
        case route(any NotificationRoute)
        case answer(Answer)
    }

    /// The route for `head`, or the answer when there is none: 404 for another path, 405 for another method.
    private func routing(_ head: HTTPRequestHead) -> Routing {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let route = routes[String(path)] else { return .answer(Answer(.notFound, "not found\n")) }
        guard head.method == .POST else { return .answer(Answer(.methodNotAllowed, "method not allowed: POST only\n")) }
        return .route(route)
    }

    /// The refusal of a body over the route's `bodyLimit`: by its `content-length`, or once that much has arrived.
    private func tooLarge(_ route: any NotificationRoute, declared: Bool) -> NotificationRefusal {
        NotificationRefusal(
            .badRequest,
            reason: "too_large",
            declared
                ? "body's content-length is over \(route.bodyLimit) bytes" : "body is over \(route.bodyLimit) bytes"
        )
    }

    /// Counts, logs (once per cause per interval) and answers a refusal.
    private func refuse(
        _ refusal: NotificationRefusal,
        _ route: any NotificationRoute,
        _ head: HTTPRequestHead,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        close: Bool = true
    ) async throws {
        metrics.notificationRefused(store: route.store, reason: refusal.reason)
        if let count = refusals.note("\(route.store.rawValue) \(refusal.reason)") {
            logger.log(
                level: refusal.status == .unavailable ? .error : .warning,
                "refused a store notification",
                metadata: [
                    "store": "\(route.store.rawValue)", "reason": "\(refusal.reason)",
                    "status": "\(refusal.status.rawValue)", LogKey.error: "\(refusal.description.prefix(300))",
                    "refused_since_last_line": "\(count)",
                ]
            )
        }
        let status = HTTPResponseStatus(statusCode: refusal.status.rawValue)
        try await write(Answer(status, "\(refusal.reason)\n"), version: head.version, close: close, to: outbound)
    }

    private func write(
        _ answer: Answer,
        version: HTTPVersion,
        close: Bool,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: answer.contentType)
        headers.add(name: "content-length", value: String(answer.body.count))
        headers.add(name: "cache-control", value: "no-store")
        if close { headers.add(name: "connection", value: "close") }
        try await outbound.write(contentsOf: [
            .head(HTTPResponseHead(version: version, status: answer.status, headers: headers)),
            .body(.byteBuffer(ByteBuffer(bytes: answer.body))),
            .end(nil),
        ])
    }
}
