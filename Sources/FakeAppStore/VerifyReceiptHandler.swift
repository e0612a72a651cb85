import Logging
import NIOCore
import NIOHTTP1

/// Serves one connection: routes requests, answers verifyReceipt and App Store
/// Server API calls after their planned delay, and notices clients that hang up
/// while waiting.
///
/// Sits behind NIO's pipelining handler, so it sees one request at a time
/// even when a client pipelines.
final class VerifyReceiptHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let planner: AnswerPlanner
    let serverAPI: ServerAPIPlanner
    let logger: Logger
    private var requestHead: HTTPRequestHead?
    private var requestBody: ByteBuffer?
    /// The call whose delayed (or never coming) answer is pending, so a hang-up can be recorded.
    var waitingRecordIndex: Int?
    /// The delayed answer pending on this connection, cancelled if the client leaves first.
    var waitingAnswer: Scheduled<Void>?

    init(planner: AnswerPlanner, serverAPI: ServerAPIPlanner, logger: Logger) {
        self.planner = planner
        self.serverAPI = serverAPI
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
            requestBody = nil
        case .body(var chunk):
            // Most bodies arrive in one chunk: keep it without copying.
            if requestBody == nil {
                requestBody = chunk
            } else {
                requestBody?.writeBuffer(&chunk)
            }
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            route(head, body: requestBody, context: context)
            requestBody = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        waitingAnswer?.cancel()
        waitingAnswer = nil
        if let recordIndex = waitingRecordIndex {
            waitingRecordIndex = nil
            planner.ledger.recordAbort(at: recordIndex)
            logger.debug("client left before its answer", metadata: ["record": "\(recordIndex)"])
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func route(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        let path = head.uri.firstIndex(of: "?").map { head.uri[..<$0] } ?? head.uri[...]
        switch (head.method, path) {
        case (.POST, "/verifyReceipt"):
            answerVerifyReceipt(head, environment: .production, body: body, context: context)
        case (.POST, "/sandbox/verifyReceipt"):
            answerVerifyReceipt(head, environment: .sandbox, body: body, context: context)
        case (.GET, "/healthz"):
            writeResponse(head, status: .ok, contentType: "text/plain", body: "ok", context: context)
        case (.GET, _) where Self.serverAPIRoute(path) != nil:
            let route = Self.serverAPIRoute(path)!
            answerServerAPI(
                head,
                environment: route.environment,
                endpoint: route.endpoint,
                transactionID: route.transactionID,
                context: context
            )
        case (.POST, "/fake/transactions"):
            answerRegistration(head, body: body, context: context)
        case (.POST, "/fake/sign"):
            answerSigning(head, body: body, context: context)
        case _ where Self.notificationRoute(head.method, path) != nil:
            answerNotifications(head, route: Self.notificationRoute(head.method, path)!, body: body, context: context)
        default:
            writeResponse(head, status: .notFound, context: context)
        }
    }

    private func answerVerifyReceipt(
        _ head: HTTPRequestHead,
        environment: RecordedRequest.Environment,
        body: ByteBuffer?,
        context: ChannelHandlerContext
    ) {
        let answer = planner.plan(environment: environment, body: body)
        logger.trace("verifyReceipt call", metadata: ["record": "\(answer.recordIndex)"])
        guard answer.delayMilliseconds > 0 else {
            deliver(answer, for: head, context: context)
            return
        }
        waitingRecordIndex = answer.recordIndex
        // Timer on the connection's own loop: no blocking, no thread hop.
        waitingAnswer = context.eventLoop.assumeIsolated().scheduleTask(
            in: .milliseconds(Int64(answer.delayMilliseconds))
        ) {
            self.waitingAnswer = nil
            self.waitingRecordIndex = nil
            self.deliver(answer, for: head, context: context)
        }
    }
}
