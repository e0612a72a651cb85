import HTTPTypes
import NIOCore
import NIOHTTPTypes

extension HTTPEndpoint {
    /// What Hummingbird's HTTP/1.1 channel does not bound by itself, in each connection's pipeline:
    ///
    /// - Admission: a connection `ConnectionGate` refuses is closed as soon as it is open, without an answer
    ///   (every open connection holds a file descriptor the database pool may need). On a trusted proxy's
    ///   connection each request is admitted by the client it is forwarded for; one over that client's share is
    ///   answered 429 and the connection closed (its body is never read).
    /// - The request deadline: a connection that has not delivered a whole request within `timeout`, counted from
    ///   when it opened and again from the end of each answer, is closed. So an idle connection, an idle keep-alive
    ///   connection, a request dripped in byte by byte and a client that never reads its answer all end after
    ///   `timeout`. (Hummingbird's `idleTimeout` counts from the last byte read, so a drip would never end.)
    /// - An answer sent with `connection: close` closes the connection once written, so the rest of a body the
    ///   server refused unread (no route, too large) is never read.
    final class ConnectionPolicy: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private let gate: ConnectionGate
        private let timeout: TimeAmount
        private var admitted: Bool?
        /// The trusted proxy the connection comes from, if it does.
        private var proxy: IPAddress?
        /// The clients of the forwarded requests not yet answered, oldest first (HTTP/1.1 answers in order).
        private var inFlight: [IPAddress] = []
        /// A forwarded request was refused: nothing more is read before the connection closes.
        private var refusing = false
        private var timer: Scheduled<Void>?
        private var closeAfterAnswer = false

        init(gate: ConnectionGate, timeout: TimeAmount) {
            self.gate = gate
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            let admission = gate.admit(context.channel)
            admitted = admission.admitted
            if case .proxy(let address) = admission.peer { proxy = address }
            if context.channel.isActive { start(context) }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            stop()
            finishAll()
        }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            start(context)
        }

        func channelInactive(context: ChannelHandlerContext) {
            stop()
            finishAll()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !refusing else { return }
            switch Self.unwrapInboundIn(data) {
            case .head(let head):
                if let proxy, !admitForwarded(head, from: proxy, context) { return }
            case .body:
                break
            case .end:
                // The whole request is in; answering it is up to the server (`/readyz` has its own 2 s bound).
                stop()
            }
            context.fireChannelRead(data)
        }

        /// Counts a request from a trusted proxy against the client it names; when that client is over its share,
        /// answers 429 and closes the connection, and returns false.
        private func admitForwarded(
            _ head: HTTPRequest,
            from proxy: IPAddress,
            _ context: ChannelHandlerContext
        ) -> Bool {
            let client = gate.trustedProxies.client(
                peer: proxy,
                forwardedFor: head.headerFields[values: Self.xForwardedFor],
                forwarded: head.headerFields[values: Self.forwarded]
            )
            let within = gate.startRequest(for: client)
            inFlight.append(client)
            guard !within else { return true }
            refusing = true
            stop()
            // An earlier request still being answered would take this answer as its own: then only close.
            if inFlight.count == 1 {
                let text = ByteBuffer(string: "too many requests in flight for one client\n")
                let fields: HTTPFields = [
                    .contentType: "text/plain; charset=utf-8", .contentLength: "\(text.readableBytes)",
                    .connection: "close",
                ]
                context.write(
                    Self.wrapOutboundOut(.head(HTTPResponse(status: .tooManyRequests, headerFields: fields))),
                    promise: nil
                )
                context.write(Self.wrapOutboundOut(.body(text)), promise: nil)
                context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
            }
            context.close(promise: nil)
            return false
        }

        private static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
        private static let forwarded = HTTPField.Name("Forwarded")!

        /// Releases every forwarded request not answered.
        private func finishAll() {
            for client in inFlight { gate.finishRequest(for: client) }
            inFlight = []
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch Self.unwrapOutboundIn(data) {
            case .head(let head):
                closeAfterAnswer = head.headerFields[.connection]?.lowercased() == "close"
            case .body:
                break
            case .end:
                if !inFlight.isEmpty { gate.finishRequest(for: inFlight.removeFirst()) }
                guard !closeAfterAnswer else {
                    context.writeAndFlush(data, promise: promise)
                    context.close(promise: nil)
                    return
                }
                // The clock restarts with the answer: the client gets `timeout` to read it and send the next request.
                start(context)
            }
            context.write(data, promise: promise)
        }

        private func start(_ context: ChannelHandlerContext) {
            stop()
            guard admitted != false, timeout > .zero else {
                context.close(promise: nil)
                return
            }
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                // An error, not just the end of the stream: Hummingbird would take a body cut short for all of it.
                context.fireErrorCaught(DeadlinePassed())
                context.close(promise: nil)
            }
        }

        /// What a request cut off by the deadline ends with, instead of its `.end`.
        struct DeadlinePassed: Error {}

        private func stop() {
            timer?.cancel()
            timer = nil
        }
    }
}
