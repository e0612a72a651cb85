import NIOCore
import NIOHTTP1

extension MetricsServer {
    /// Closes a connection that has not delivered a whole request within `timeout`, counted from when it
    /// opened and again from the end of each answer. So an idle connection, an idle keep-alive connection,
    /// a request dripped in byte by byte and a client that never reads its answer all end after `timeout`.
    /// A timeout of zero closes the connection as soon as it is open.
    final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        private let timeout: TimeAmount
        private var timer: Scheduled<Void>?

        init(timeout: TimeAmount) {
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
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
            // The clock restarts with the answer: the client gets `timeout` to read it and send the next request.
            if case .end = Self.unwrapOutboundIn(data) { start(context) }
            context.write(data, promise: promise)
        }

        private func start(_ context: ChannelHandlerContext) {
            stop()
            guard timeout > .zero else {
                context.close(promise: nil)
                return
            }
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                context.close(promise: nil)
            }
        }

        private func stop() {
            timer?.cancel()
            timer = nil
        }
    }
}
