import HTTPTypes
import NIOCore
import NIOHTTPTypes

extension HTTPEndpoint {
    /// What Hummingbird's HTTP/1.1 channel does not bound by itself, in each connection's pipeline:
    ///
    /// - Admission: a connection `ConnectionGate` refuses is closed as soon as it is open, without an answer
    ///   (every open connection holds a file descriptor the database pool may need).
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
        private var timer: Scheduled<Void>?
        private var closeAfterAnswer = false

        init(gate: ConnectionGate, timeout: TimeAmount) {
            self.gate = gate
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            admitted = gate.admit(context.channel)
            if context.channel.isActive { start(context) }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            stop()
        }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            start(context)
        }

        func channelInactive(context: ChannelHandlerContext) {
            stop()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // The whole request is in; answering it is up to the server (`/readyz` has its own 2 s bound).
            if case .end = Self.unwrapInboundIn(data) { stop() }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch Self.unwrapOutboundIn(data) {
            case .head(let head):
                closeAfterAnswer = head.headerFields[.connection]?.lowercased() == "close"
            case .body:
                break
            case .end:
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
