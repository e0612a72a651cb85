import Foundation
import NIOCore
import NIOHTTP1

extension VerifyReceiptHandler {
    /// The Server API's paths, each followed by a transaction id: Get Transaction Info, Get Transaction History
    /// and Get All Subscription Statuses, in production and under `/sandbox`.
    private static let serverAPIRoutes:
        [(prefix: String, environment: RecordedRequest.Environment, endpoint: ServerAPIEndpoint)] = [
            ("/inApps/v1/transactions/", .production, .transactionInfo),
            ("/sandbox/inApps/v1/transactions/", .sandbox, .transactionInfo),
            ("/inApps/v2/history/", .production, .transactionHistory),
            ("/sandbox/inApps/v2/history/", .sandbox, .transactionHistory),
            ("/inApps/v1/subscriptions/", .production, .subscriptionStatuses),
            ("/sandbox/inApps/v1/subscriptions/", .sandbox, .subscriptionStatuses),
        ]

    /// The Server API route `path` asks for, with its transaction id; `nil` for any other path.
    static func serverAPIRoute(
        _ path: Substring
    ) -> (environment: RecordedRequest.Environment, endpoint: ServerAPIEndpoint, transactionID: Substring)? {
        for route in serverAPIRoutes where path.hasPrefix(route.prefix) && path.count > route.prefix.count {
            return (route.environment, route.endpoint, path.dropFirst(route.prefix.count))
        }
        return nil
    }

    /// Answers `GET …/inApps/v1/transactions/{id}` or `GET …/inApps/v2/history/{id}` after its planned delay.
    func answerServerAPI(
        _ head: HTTPRequestHead,
        environment: RecordedRequest.Environment,
        endpoint: ServerAPIEndpoint,
        transactionID: Substring,
        context: ChannelHandlerContext
    ) {
        let revision = URLComponents(string: head.uri)?.queryItems?.first { $0.name == "revision" }?.value
        let answer = serverAPI.plan(
            environment: environment,
            endpoint: endpoint,
            transactionID: String(transactionID),
            revision: revision,
            authorization: head.headers.first(name: "authorization")
        )
        logger.trace("Server API call", metadata: ["record": "\(answer.recordIndex)"])
        guard answer.delayMilliseconds > 0 else {
            deliver(answer, for: head, context: context)
            return
        }
        waitingAnswer = context.eventLoop.assumeIsolated().scheduleTask(
            in: .milliseconds(Int64(answer.delayMilliseconds))
        ) {
            self.waitingAnswer = nil
            self.deliver(answer, for: head, context: context)
        }
    }

    /// `POST /fake/transactions`: registers a transaction for another process; 204, or 400 for a bad body.
    func answerRegistration(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        guard let body, let registration = ServerAPIRegistration(body: Data(body.readableBytesView)) else {
            writeResponse(
                head,
                status: .badRequest,
                contentType: "text/plain",
                body: "expected {\"transaction\":{…},\"script\":[…]} with transactionId and productId",
                context: context
            )
            return
        }
        serverAPI.ledger.register(registration.transaction, script: registration.script)
        writeResponse(head, status: .noContent, context: context)
    }

    /// `POST /fake/sign`: a payload signed with the stand-in's chain, as text; 400 for a bad body.
    func answerSigning(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        guard let body,
            let payload = try? JSONDecoder().decode(SignedTransactionPayload.self, from: Data(body.readableBytesView))
        else {
            writeResponse(
                head,
                status: .badRequest,
                contentType: "text/plain",
                body: "expected a transaction payload with transactionId and productId",
                context: context
            )
            return
        }
        writeResponse(
            head,
            status: .ok,
            contentType: "text/plain",
            body: serverAPI.chain.signedTransaction(payload),
            context: context
        )
    }

    /// Writes a planned Server API answer and records what was actually sent.
    private func deliver(_ answer: ServerAPIAnswer, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        let ledger = serverAPI.ledger
        switch answer.reply {
        case .json(let status, let body, let errorCode, let retryAfter):
            ledger.recordAnswer(at: answer.recordIndex, httpStatus: status, errorCode: errorCode)
            writeResponse(
                head,
                status: HTTPResponseStatus(statusCode: status),
                contentType: "application/json",
                body: body,
                extraHeaders: retryAfter.map { [("retry-after", $0)] } ?? [],
                context: context
            )
        case .emptyHTTP(let status, let retryAfter):
            ledger.recordAnswer(at: answer.recordIndex, httpStatus: status, errorCode: nil)
            writeResponse(
                head,
                status: HTTPResponseStatus(statusCode: status),
                extraHeaders: retryAfter.map { [("retry-after", $0)] } ?? [],
                context: context
            )
        case .html(let body):
            ledger.recordAnswer(at: answer.recordIndex, httpStatus: 200, errorCode: nil)
            writeResponse(head, status: .ok, contentType: "text/html", body: body, context: context)
        case .closeConnection:
            ledger.recordAnswer(at: answer.recordIndex, httpStatus: nil, errorCode: nil)
            context.close(promise: nil)
        }
    }
}
