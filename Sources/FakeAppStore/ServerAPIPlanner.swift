import Foundation

/// Decides the answer to one App Store Server API call: the bearer check, the
/// rate limit, the transaction's script step, then the environment and the
/// signed transaction itself.
struct ServerAPIPlanner: Sendable {
    let ledger: ServerAPILedger
    let bearerCheck: ServerAPIBearerCheck
    let chain: AppleTestChain

    /// Logs a Get Transaction Info call and plans its answer.
    func plan(
        environment: RecordedRequest.Environment,
        transactionID: String,
        authorization: String?
    ) -> ServerAPIAnswer {
        let bearerFailure = bearerCheck.failure(authorization: authorization)
        let admission = ledger.admit(RecordedServerAPIRequest(
            environment: environment, transactionID: transactionID, bearerFailure: bearerFailure))
        var answer = ServerAPIAnswer(reply: .closeConnection, delayMilliseconds: 0, recordIndex: admission.recordIndex)
        switch admission.verdict {
        case .unauthorized:
            answer.reply = .emptyHTTP(status: 401, retryAfter: nil)
        case .rateLimited(let retryAfterMilliseconds):
            answer.reply = error(ServerAPIAnswerBody.rateLimitExceeded, retryAfter: String(retryAfterMilliseconds))
        case .unknown:
            answer.reply = error(ServerAPIAnswerBody.transactionIDNotFound)
        case .registered(let payload, let step):
            answer.delayMilliseconds = max(0, step?.delayMilliseconds ?? 0)
            answer.reply = step.flatMap(scriptedReply) ?? found(payload, environment: environment)
        }
        return answer
    }

    /// A script step's own answer; `nil` when the step only delays (or only sets verifyReceipt's `status`).
    private func scriptedReply(_ step: ScriptStep) -> ServerAPIAnswer.Reply? {
        if step.reset == true { return .closeConnection }
        if let code = step.errorCode {
            return error(code, status: step.http, retryAfter: step.retryAfter)
        }
        if let status = step.http { return .emptyHTTP(status: status, retryAfter: step.retryAfter) }
        if let raw = step.raw { return .html(raw) }
        return nil
    }

    /// The signed transaction, signed now, when it belongs to the environment asked; Apple's "not found" otherwise.
    private func found(_ payload: SignedTransactionPayload, environment: RecordedRequest.Environment) -> ServerAPIAnswer.Reply {
        // Anything but "Sandbox" is a production transaction, as on verifyReceipt.
        let home: RecordedRequest.Environment = payload.environment == "Sandbox" ? .sandbox : .production
        guard home == environment else { return error(ServerAPIAnswerBody.transactionIDNotFound) }
        var signed = payload
        signed.signedDate = SignedTransactionPayload.nowMilliseconds()
        let body = ServerAPIAnswerBody.transactionInfo(signed: chain.signedTransaction(signed))
        return .json(status: 200, body: body, errorCode: nil, retryAfter: nil)
    }

    private func error(_ code: Int, status: Int? = nil, retryAfter: String? = nil) -> ServerAPIAnswer.Reply {
        .json(
            status: status ?? ServerAPIAnswerBody.httpStatus(forErrorCode: code), body: ServerAPIAnswerBody.error(code),
            errorCode: code, retryAfter: retryAfter)
    }
}
