import Foundation
import NIOCore
import NIOHTTP1

extension VerifyReceiptHandler {
    /// A route of the notifications side.
    enum NotificationRoute: Equatable {
        /// `PUT …/inApps/v2/transactions/consumption/{id}`.
        case consumption(RecordedRequest.Environment, transactionID: String)
        /// `PUT …/inApps/v1/transactions/{originalTransactionId}/appAccountToken`.
        case appAccountToken(RecordedRequest.Environment, originalTransactionID: String)
        /// `POST …/inApps/v1/notifications/history`.
        case history(RecordedRequest.Environment)
        /// `POST /fake/notifications`: sign, remember and post a notification.
        case send
        /// `POST /fake/consumption-script` and `POST /fake/notification-history-script`: `{"script":[steps]}`.
        case script(consumption: Bool)
    }

    /// The notification route `method` and `path` ask for; `nil` for any other.
    static func notificationRoute(_ method: HTTPMethod, _ path: Substring) -> NotificationRoute? {
        switch method {
        case .PUT:
            for (prefix, environment) in [
                ("/inApps/v2/transactions/consumption/", RecordedRequest.Environment.production),
                ("/sandbox/inApps/v2/transactions/consumption/", .sandbox),
            ] where path.hasPrefix(prefix) && path.count > prefix.count {
                return .consumption(environment, transactionID: String(path.dropFirst(prefix.count)))
            }
            for (prefix, environment) in [
                ("/inApps/v1/transactions/", RecordedRequest.Environment.production),
                ("/sandbox/inApps/v1/transactions/", .sandbox),
            ] where path.hasPrefix(prefix) && path.hasSuffix("/appAccountToken") {
                let id = path.dropFirst(prefix.count).dropLast("/appAccountToken".count)
                guard !id.isEmpty, !id.contains("/") else { return nil }
                return .appAccountToken(environment, originalTransactionID: String(id))
            }
            return nil
        case .POST:
            switch path {
            case "/inApps/v1/notifications/history": return .history(.production)
            case "/sandbox/inApps/v1/notifications/history": return .history(.sandbox)
            case "/fake/notifications": return .send
            case "/fake/consumption-script": return .script(consumption: true)
            case "/fake/notification-history-script": return .script(consumption: false)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Answers one notification route.
    func answerNotifications(
        _ head: HTTPRequestHead,
        route: NotificationRoute,
        body: ByteBuffer?,
        context: ChannelHandlerContext
    ) {
        let data = body.map { Data($0.readableBytesView) } ?? Data()
        let ledger = serverAPI.notifications
        switch route {
        case .consumption(let environment, let transactionID):
            let reply = consumptionReply(head, data)
            ledger.record(
                RecordedConsumptionRequest(
                    environment: environment,
                    transactionID: transactionID.removingPercentEncoding ?? transactionID,
                    body: String(decoding: data, as: UTF8.self),
                    bearerFailure: serverAPI.bearerCheck.failure(
                        authorization: head.headers.first(name: "authorization")
                    ),
                    httpStatus: reply.status,
                    receivedAt: Date()
                )
            )
            guard reply.delayMilliseconds > 0 else {
                writeReply(reply.reply, for: head, context: context)
                return
            }
            // A slow Apple: the answer (already decided and recorded) comes late, or never when the caller gave up.
            waitingAnswer = context.eventLoop.assumeIsolated().scheduleTask(
                in: .milliseconds(Int64(reply.delayMilliseconds))
            ) {
                self.waitingAnswer = nil
                self.writeReply(reply.reply, for: head, context: context)
            }
        case .appAccountToken(let environment, let originalTransactionID):
            let reply = appAccountTokenReply(head, data)
            ledger.record(
                RecordedAppAccountTokenRequest(
                    environment: environment,
                    originalTransactionID: originalTransactionID.removingPercentEncoding ?? originalTransactionID,
                    appAccountToken: ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?[
                        "appAccountToken"
                    ] as? String,
                    bearerFailure: serverAPI.bearerCheck.failure(
                        authorization: head.headers.first(name: "authorization")
                    ),
                    httpStatus: reply.status,
                    receivedAt: Date()
                )
            )
            writeReply(reply.reply, for: head, context: context)
        case .history(let environment):
            answerHistory(head, environment: environment, data, context: context)
        case .script(let consumption):
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let steps = try? JSONDecoder().decode(
                    [ScriptStep].self,
                    from: JSONSerialization.data(withJSONObject: object["script"] ?? [Any]())
                )
            else {
                writeResponse(
                    head,
                    status: .badRequest,
                    contentType: "text/plain",
                    body: "expected {\"script\":[…]}",
                    context: context
                )
                return
            }
            if consumption { ledger.scriptConsumption(steps) } else { ledger.scriptHistory(steps) }
            writeResponse(head, status: .noContent, context: context)
        case .send:
            answerSend(head, data, context: context)
        }
    }

    /// Send Consumption Information's answer: the bearer check, the script, the body's checks, then 202; a script
    /// step's `delay_ms` holds the answer back that long (a step with only a delay is the usual answer, late).
    private func consumptionReply(
        _ head: HTTPRequestHead,
        _ data: Data
    ) -> (reply: ServerAPIAnswer.Reply, status: Int, delayMilliseconds: Int) {
        if serverAPI.bearerCheck.failure(authorization: head.headers.first(name: "authorization")) != nil {
            return (.emptyHTTP(status: 401, retryAfter: nil), 401, 0)
        }
        let step = serverAPI.notifications.nextConsumptionStep()
        let delay = max(0, step?.delayMilliseconds ?? 0)
        if let step, let reply = serverAPI.scriptedReply(step) {
            return (reply, Self.status(of: reply), delay)
        }
        // Apple requires the customer's consent and a delivery status; anything else is a bad request.
        let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard fields?["customerConsented"] as? Bool == true, fields?["deliveryStatus"] is String,
            fields?["sampleContentProvided"] is Bool
        else {
            let reply = serverAPI.error(4_000_000, status: 400)
            return (reply, 400, delay)
        }
        return (.emptyHTTP(status: 202, retryAfter: nil), 202, delay)
    }

    /// Set App Account Token's answer: the bearer check, the script, the body's UUID, then 200.
    private func appAccountTokenReply(
        _ head: HTTPRequestHead,
        _ data: Data
    ) -> (reply: ServerAPIAnswer.Reply, status: Int) {
        if serverAPI.bearerCheck.failure(authorization: head.headers.first(name: "authorization")) != nil {
            return (.emptyHTTP(status: 401, retryAfter: nil), 401)
        }
        if let step = serverAPI.notifications.nextAppAccountTokenStep(), let reply = serverAPI.scriptedReply(step) {
            return (reply, Self.status(of: reply))
        }
        let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard (fields?["appAccountToken"] as? String).flatMap(UUID.init(uuidString:)) != nil else {
            return (serverAPI.error(4_000_183, status: 400), 400)
        }
        return (.emptyHTTP(status: 200, retryAfter: nil), 200)
    }

    /// Get Notification History's answer: a page of the notifications sent in the environment, signed in the
    /// body's [startDate, endDate), 20 a page, the next asked with `?paginationToken=`.
    private func answerHistory(
        _ head: HTTPRequestHead,
        environment: RecordedRequest.Environment,
        _ data: Data,
        context: ChannelHandlerContext
    ) {
        let ledger = serverAPI.notifications
        let fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        let start = (fields?["startDate"] as? NSNumber)?.int64Value
        let end = (fields?["endDate"] as? NSNumber)?.int64Value
        let token = URLComponents(string: head.uri)?.queryItems?.first { $0.name == "paginationToken" }?.value
        let bearerFailure = serverAPI.bearerCheck.failure(authorization: head.headers.first(name: "authorization"))
        let reply: ServerAPIAnswer.Reply
        if bearerFailure != nil {
            reply = .emptyHTTP(status: 401, retryAfter: nil)
        } else if let step = ledger.nextHistoryStep(), let scripted = serverAPI.scriptedReply(step) {
            reply = scripted
        } else if let start, let end, start < end, start >= Self.earliestStart(environment),
            let offset = token == nil ? 0 : token.flatMap(HistoryRevision.offset)
        {
            let (page, next) = ledger.historyPage(
                environment: environment == .sandbox ? "Sandbox" : "Production",
                start: start,
                end: end,
                offset: offset
            )
            reply = .json(status: 200, body: Self.historyBody(page, next: next), errorCode: nil, retryAfter: nil)
        } else {
            // Apple's "invalid start date" and "invalid pagination token" are both bad requests.
            reply = serverAPI.error(4_000_000, status: 400)
        }
        ledger.record(
            RecordedNotificationHistoryQuery(
                environment: environment,
                startDate: start,
                endDate: end,
                paginationToken: token,
                bearerFailure: bearerFailure,
                httpStatus: Self.status(of: reply),
                receivedAt: Date()
            )
        )
        writeReply(reply, for: head, context: context)
    }

    /// The earliest `startDate` Apple accepts: 180 days back in production, 30 in the sandbox.
    static func earliestStart(_ environment: RecordedRequest.Environment, now: Date = Date()) -> Int64 {
        Int64(now.timeIntervalSince1970 * 1000) - Int64(environment == .sandbox ? 30 : 180) * 86_400_000
    }

    /// `{"notificationHistory":[{"signedPayload","sendAttempts"}],"hasMore","paginationToken"}`.
    static func historyBody(_ page: [SentNotification], next: Int?) -> String {
        let records: [[String: Any]] = page.map { sent in
            let attempts: [[String: Any]] =
                sent.url == nil
                ? []
                : [
                    [
                        "attemptDate": sent.signedDate,
                        "sendAttemptResult": sent.httpStatus.map { (200...206).contains($0) } == true
                            ? "SUCCESS" : (sent.httpStatus == nil ? "NO_RESPONSE" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE"),
                    ]
                ]
            return ["signedPayload": sent.signedPayload, "sendAttempts": attempts]
        }
        var object: [String: Any] = ["notificationHistory": records, "hasMore": next != nil]
        if let next { object["paginationToken"] = HistoryRevision.token(offset: next) }
        do {
            let data = try JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
            return String(decoding: data, as: UTF8.self)
        } catch {
            // Strings, numbers, Bools and arrays of them always serialize.
            preconditionFailure("notification history failed to serialize: \(error)")
        }
    }

    /// `POST /fake/notifications`: sends the notification off the event loop, then answers 200 with the
    /// ``NotificationSendResult`` (400 for a bad order).
    private func answerSend(_ head: HTTPRequestHead, _ data: Data, context: ChannelHandlerContext) {
        guard let order = try? JSONDecoder().decode(ServerAPINotificationOrder.self, from: data) else {
            writeResponse(
                head,
                status: .badRequest,
                contentType: "text/plain",
                body: "expected {\"notificationType\":…,\"transaction\":{…},\"url\":…,\"deliver\":…}",
                context: context
            )
            return
        }
        let ledger = serverAPI.notifications
        let promise = context.eventLoop.makePromise(of: Result<NotificationSendResult, any Error>.self)
        promise.completeWithTask {
            do { return .success(try await ledger.send(order)) } catch { return .failure(error) }
        }
        promise.futureResult.assumeIsolated().whenSuccess { result in
            switch result {
            case .success(let sent):
                let body = (try? JSONEncoder().encode(sent)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                self.writeResponse(head, status: .ok, contentType: "application/json", body: body, context: context)
            case .failure(let error):
                self.writeResponse(
                    head,
                    status: .badRequest,
                    contentType: "text/plain",
                    body: "\(error)",
                    context: context
                )
            }
        }
    }

    /// The HTTP status a reply carries.
    private static func status(of reply: ServerAPIAnswer.Reply) -> Int {
        switch reply {
        case .json(let status, _, _, _), .emptyHTTP(let status, _): status
        case .html: 200
        case .closeConnection: 0
        }
    }

    /// Writes a reply (closing the connection for a scripted reset).
    private func writeReply(_ reply: ServerAPIAnswer.Reply, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        switch reply {
        case .json(let status, let body, _, let retryAfter):
            writeResponse(
                head,
                status: HTTPResponseStatus(statusCode: status),
                contentType: "application/json",
                body: body,
                extraHeaders: retryAfter.map { [("retry-after", $0)] } ?? [],
                context: context
            )
        case .emptyHTTP(let status, let retryAfter):
            writeResponse(
                head,
                status: HTTPResponseStatus(statusCode: status),
                extraHeaders: retryAfter.map { [("retry-after", $0)] } ?? [],
                context: context
            )
        case .html(let body):
            writeResponse(head, status: .ok, contentType: "text/html", body: body, context: context)
        case .closeConnection:
            context.close(promise: nil)
        }
    }
}
