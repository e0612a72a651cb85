import Foundation

/// Decides the answer to one App Store Server API call: the bearer check, the
/// rate limit, the transaction's script step, then the environment and the
/// signed transaction itself (or a page of the history).
struct ServerAPIPlanner: Sendable {
    let ledger: ServerAPILedger
    let bearerCheck: ServerAPIBearerCheck
    let chain: AppleTestChain
    /// Transactions per Get Transaction History page.
    let historyPageSize: Int
    /// Notifications sent, consumption information received, and their scripts.
    let notifications: ServerAPINotificationLedger
    /// The auto-renewable subscriptions Get All Subscription Statuses answers from.
    let subscriptions: SubscriptionBook
    /// Milliseconds every answer waits, beyond a script step's own delay.
    var latency = 0

    /// Logs a Get Transaction Info or Get Transaction History call and plans its answer.
    func plan(
        environment: RecordedRequest.Environment,
        endpoint: ServerAPIEndpoint,
        transactionID: String,
        revision: String?,
        authorization: String?
    ) -> ServerAPIAnswer {
        let bearerFailure = bearerCheck.failure(authorization: authorization)
        let admission = ledger.admit(
            RecordedServerAPIRequest(
                environment: environment,
                endpoint: endpoint,
                transactionID: transactionID,
                revision: revision,
                bearerFailure: bearerFailure
            )
        )
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
        case .history(let payloads):
            answer.reply = historyPage(payloads, environment: environment, revision: revision)
        case .subscriptionStatuses:
            let step = subscriptions.nextStep()
            answer.delayMilliseconds = max(0, step?.delayMilliseconds ?? 0)
            answer.reply = step.flatMap(scriptedReply) ?? statuses(transactionID, environment: environment)
        }
        answer.delayMilliseconds += max(0, latency)
        return answer
    }

    /// A script step's own answer; `nil` when the step only delays (or only sets verifyReceipt's `status`).
    func scriptedReply(_ step: ScriptStep) -> ServerAPIAnswer.Reply? {
        if step.reset == true { return .closeConnection }
        if let code = step.errorCode {
            return error(code, status: step.http, retryAfter: step.retryAfter)
        }
        if let status = step.http { return .emptyHTTP(status: status, retryAfter: step.retryAfter) }
        if let raw = step.raw { return .html(raw) }
        return nil
    }

    /// The signed transaction, signed now, when it belongs to the environment asked; Apple's "not found" otherwise.
    private func found(
        _ payload: SignedTransactionPayload,
        environment: RecordedRequest.Environment
    ) -> ServerAPIAnswer.Reply {
        // Anything but "Sandbox" is a production transaction, as on verifyReceipt.
        let home: RecordedRequest.Environment = payload.environment == "Sandbox" ? .sandbox : .production
        guard home == environment else { return error(ServerAPIAnswerBody.transactionIDNotFound) }
        var signed = payload
        signed.signedDate = SignedTransactionPayload.nowMilliseconds()
        let body = ServerAPIAnswerBody.transactionInfo(signed: chain.signedTransaction(signed))
        return .json(status: 200, body: body, errorCode: nil, retryAfter: nil)
    }

    /// The page of the history's transactions in `environment` that `revision` points at (the first without one),
    /// signed now; Apple's "not found" when the environment holds none of them.
    private func historyPage(
        _ payloads: [SignedTransactionPayload],
        environment: RecordedRequest.Environment,
        revision: String?
    ) -> ServerAPIAnswer.Reply {
        let here = payloads.filter { ($0.environment == "Sandbox" ? .sandbox : .production) == environment }
        guard let first = here.first else { return error(ServerAPIAnswerBody.transactionIDNotFound) }
        let start: Int? = if let revision { HistoryRevision.offset(revision) } else { 0 }
        guard let start, start <= here.count else {
            return error(ServerAPIAnswerBody.invalidRevision)
        }
        let end = min(here.count, start + max(1, historyPageSize))
        let signed = here[start..<end].map { payload in
            var payload = payload
            payload.signedDate = SignedTransactionPayload.nowMilliseconds()
            return chain.signedTransaction(payload)
        }
        let body = ServerAPIAnswerBody.history(
            revision: HistoryRevision.token(offset: end),
            hasMore: end < here.count,
            bundleID: first.bundleId,
            environment: first.environment == "Sandbox" ? "Sandbox" : "Production",
            signed: signed
        )
        return .json(status: 200, body: body, errorCode: nil, retryAfter: nil)
    }

    /// The subscription a transaction id names, as Get All Subscription Statuses answers: its group, its latest
    /// transaction and renewal info signed now, its status; Apple's "not found" when there is none in `environment`.
    private func statuses(_ transactionID: String, environment: RecordedRequest.Environment) -> ServerAPIAnswer.Reply {
        let name = environment == .sandbox ? "Sandbox" : "Production"
        let now = SignedTransactionPayload.nowMilliseconds()
        guard let found = subscriptions.status(for: transactionID, environment: name, now: now) else {
            return error(ServerAPIAnswerBody.transactionIDNotFound)
        }
        let last: [String: Any] = [
            "status": found.status, "originalTransactionId": found.current.originalTransactionId,
            "signedTransactionInfo": chain.signedTransaction(found.current),
            "signedRenewalInfo": chain.sign(payload: found.renewal.encodedJSON()),
        ]
        let body: [String: Any] = [
            "environment": name, "bundleId": found.current.bundleId,
            "data": [["subscriptionGroupIdentifier": found.group ?? "", "lastTransactions": [last]]],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else {
            return .closeConnection
        }
        return .json(status: 200, body: String(decoding: data, as: UTF8.self), errorCode: nil, retryAfter: nil)
    }

    func error(_ code: Int, status: Int? = nil, retryAfter: String? = nil) -> ServerAPIAnswer.Reply {
        .json(
            status: status ?? ServerAPIAnswerBody.httpStatus(forErrorCode: code),
            body: ServerAPIAnswerBody.error(code),
            errorCode: code,
            retryAfter: retryAfter
        )
    }
}
