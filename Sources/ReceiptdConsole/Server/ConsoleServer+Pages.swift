import Foundation
import Hummingbird
import Logging
import ReceiptdCore

extension ConsoleServer {
    /// How many rows the list pages show (stuck, notifications, refunds, webhooks).
    static let listLimit = 200

    /// The pages and their actions, behind the gate (which has checked the session, and for a `POST` its CSRF
    /// token and the operator role). Every action answers 303 to the page of what it acted on, with its result as
    /// the flash message; a refusal too (`refused: …`, `not found: …`).
    func addPages(to router: Router<ConsoleRequestContext>) {
        router.get("/") { request, context in
            try await page(request, context) { queries, session, fields in
                let status = try await queries.status()
                let series = try await queries.overviewSeries()
                return ConsoleLayout.response(
                    OverviewPage.page(status: status, series: series, flash: session.flash(in: fields)),
                    session: session
                )
            }
        }
        router.get("/overview.json") { request, context in
            try await page(request, context) { queries, _, _ in
                let status = try await queries.status()
                let series = try await queries.overviewSeries()
                let document = OverviewPage.document(status: status, series: series)
                var headers = HTTPFields()
                headers[.contentType] = "application/json; charset=utf-8"
                headers[.cacheControl] = "no-store"
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let json = try encoder.encode(document)
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
            }
        }
        router.get("/search") { request, context in
            try await page(request, context) { queries, session, fields in
                let query = fields["q"] ?? ""
                let hits = try await queries.search(query)
                if hits.count == 1, let hit = hits.first {
                    return ConsoleLayout.redirect(to: ConsoleLinks.hit(hit))
                }
                return ConsoleLayout.response(SearchPage.page(query: query, hits: hits), session: session, query: query)
            }
        }
        router.get("/player") { request, context in
            try await page(request, context) { queries, session, fields in
                let userID = fields["id"] ?? ""
                guard !userID.isEmpty else {
                    return ConsoleLayout.response(
                        ErrorPage.notFound("Which player? Search for a user id."),
                        session: session
                    )
                }
                return ConsoleLayout.response(
                    PlayerPage.page(try await queries.player(userID), session: session),
                    session: session
                )
            }
        }
        router.get("/order") { request, context in
            try await page(request, context) { queries, session, fields in
                let orderID = fields["id"] ?? ""
                do {
                    let timeline = try await queries.timeline(orderID: orderID)
                    return ConsoleLayout.response(
                        OrderPage.page(timeline, session: session, flash: session.flash(in: fields)),
                        session: session
                    )
                } catch OperatorError.notFound {
                    return ConsoleLayout.response(
                        ErrorPage.notFound("No order is named “\(orderID)”.", flash: session.flash(in: fields)),
                        session: session
                    )
                }
            }
        }
        router.get("/unclaimed") { request, context in
            try await page(request, context) { queries, session, fields in
                let filter = UnclaimedFilter(
                    store: Self.nonEmpty(fields["store"]),
                    userID: Self.nonEmpty(fields["user"]),
                    transactionID: Self.nonEmpty(fields["transaction_id"]),
                    includeAssigned: fields["state"] == "all"
                )
                let payments = try await queries.unclaimed(filter)
                return ConsoleLayout.response(
                    UnclaimedPage.page(payments, filter: filter, session: session, flash: session.flash(in: fields)),
                    session: session
                )
            }
        }
        router.get("/stuck") { request, context in
            try await page(request, context) { queries, session, fields in
                let jobs = try await queries.stuckJobs(limit: Self.listLimit)
                var total = jobs.count
                if total >= Self.listLimit { total = try await queries.status().stuckTotal }
                return ConsoleLayout.response(
                    StuckPage.page(jobs, total: total, session: session, flash: session.flash(in: fields)),
                    session: session
                )
            }
        }
        router.get("/notifications") { request, context in
            try await page(request, context) { queries, session, fields in
                let filter = NotificationFilter(
                    store: Self.nonEmpty(fields["store"]),
                    type: Self.nonEmpty(fields["type"]),
                    limit: Self.listLimit
                )
                return ConsoleLayout.response(
                    NotificationsPage.page(try await queries.notifications(filter), filter: filter),
                    session: session
                )
            }
        }
        router.get("/refunds") { request, context in
            try await page(request, context) { queries, session, fields in
                let state = Self.nonEmpty(fields["state"]).flatMap(RefundRequestState.init(rawValue:))
                let requests = try await queries.refundRequests(state: state, limit: Self.listLimit)
                return ConsoleLayout.response(
                    RefundsPage.page(requests, state: state, session: session, flash: session.flash(in: fields)),
                    session: session
                )
            }
        }
        router.get("/webhooks") { request, context in
            try await page(request, context) { queries, session, fields in
                let state = Self.nonEmpty(fields["state"]).flatMap(WebhookEventState.init(rawValue:))
                let listing = try await queries.webhooks(WebhookFilter(state: state, limit: Self.listLimit))
                return ConsoleLayout.response(
                    WebhooksPage.page(listing, state: state, session: session, flash: session.flash(in: fields)),
                    session: session
                )
            }
        }
        addActions(to: router)
    }

    private func addActions(to router: Router<ConsoleRequestContext>) {
        router.post("/actions/retry") { request, context in
            try await action(request, context) { queries, form in
                let order = form["order_id"] ?? ""
                let message = try await Self.outcome {
                    let result = try await queries.retry(orderID: order)
                    return "retried: job \(result.jobID) is pending"
                }
                return ConsoleLinks.order(order, flash: message)
            }
        }
        router.post("/actions/cancel") { request, context in
            try await action(request, context) { queries, form in
                let order = form["order_id"] ?? ""
                let message = try await Self.outcome {
                    let result = try await queries.cancel(orderID: order)
                    return "cancelled: job \(result.jobID)"
                }
                return ConsoleLinks.order(order, flash: message)
            }
        }
        router.post("/actions/assign") { request, context in
            try await action(request, context) { queries, form in
                let transaction = form["transaction_id"] ?? ""
                let order = (form["order_id"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let message = try await Self.outcome {
                    let result = try await queries.assign(transactionID: transaction, to: order)
                    return "assigned: \(result.transactionID) to order \(result.orderID), now \(result.outcome)"
                }
                return ConsoleLinks.order(order, flash: message)
            }
        }
        router.post("/actions/answer-refund") { request, context in
            try await action(request, context) { queries, form in
                let requestID = form["request_id"] ?? ""
                let consumed = Self.nonEmpty(form["consumed"])
                let message = try await Self.outcome {
                    guard let preference = RefundPreference(rawValue: form["preference"] ?? "") else {
                        return "refused: preference must be decline, grant_full, grant_prorated or none"
                    }
                    guard consumed == nil || Int(consumed ?? "") != nil else {
                        return "refused: consumed must be a whole number of thousandths of a percent"
                    }
                    let answered = try await queries.answerRefund(
                        requestID: requestID,
                        preference: preference,
                        consumedMilliunits: consumed.flatMap { Int($0) }
                    )
                    return "answered: \(answered.requestID) \(preference.rawValue); the daemons send it"
                }
                return ConsoleLinks.withFlash("/refunds", message)
            }
        }
        router.post("/actions/replay") { request, context in
            try await action(request, context) { queries, form in
                let event = form["event_id"] ?? ""
                let message = try await Self.outcome {
                    let result = try await queries.replayWebhookEvents([event])
                    return result.replayed.isEmpty
                        ? "not found: no webhook event \(event)" : "replayed: \(result.replayed.joined(separator: " "))"
                }
                return ConsoleLinks.withFlash("/webhooks", message)
            }
        }
    }

    /// A `GET` page: the query's fields and a connection on the operator's role, acting as the signed-in user;
    /// the database failing answers 503, anything else unexpected 500, both without details.
    private func page(
        _ request: Request,
        _ context: ConsoleRequestContext,
        _ body: @escaping @Sendable (OperatorQueries, ConsoleSession, ConsoleForm) async throws -> Response
    ) async throws -> Response {
        guard let session = context.session else { return ConsoleLayout.redirect(to: "/signin") }
        let fields = ConsoleForm(encoded: request.uri.query ?? "")
        return try await answering(session) {
            try await database.withConnection { connection in
                try await body(OperatorQueries(connection: connection, actor: session.user), session, fields)
            }
        }
    }

    /// A `POST` action: the form's fields, then 303 to the location `body` returns (its flash the result).
    private func action(
        _ request: Request,
        _ context: ConsoleRequestContext,
        _ body: @escaping @Sendable (OperatorQueries, ConsoleForm) async throws -> String
    ) async throws -> Response {
        guard let session = context.session, session.role == .operator else {
            throw HTTPError(.forbidden, message: "Viewers cannot change anything.")
        }
        var request = request
        let bytes = try await request.collectBody(upTo: context.maxUploadSize)
        let form = ConsoleForm(body: bytes)
        return try await answering(session) {
            let location = try await database.withConnection { connection in
                try await body(OperatorQueries(connection: connection, actor: session.user), form)
            }
            logger.info(
                "console action",
                metadata: ["actor": "\(session.user)", "path": "\(request.uri.path)"]
            )
            return ConsoleLayout.redirect(to: session.checkingFlash(of: location))
        }
    }

    /// Runs `body`, turning a database failure into the 503 page and anything else unexpected into the 500 page;
    /// the log gets the error's kind, never its text (it may quote SQL or the connection's settings).
    private func answering(
        _ session: ConsoleSession,
        _ body: () async throws -> Response
    ) async throws -> Response {
        do {
            return try await body()
        } catch let error as HTTPError {
            throw error
        } catch let error as PostgresError {
            logger.error(
                "console: the database failed",
                metadata: ["kind": "\(error.kind)", "sqlstate": "\(error.sqlState ?? "")"]
            )
            return ConsoleLayout.response(ErrorPage.databaseUnavailable(), session: session)
        } catch {
            logger.error("console: request failed", metadata: ["error": "\(type(of: error))"])
            return ConsoleLayout.response(ErrorPage.internalError(), session: session)
        }
    }

    /// The flash message of an action: what `body` says, or the refusal (`refused: …`, `not found: …`).
    private static func outcome(_ body: () async throws -> String) async throws -> String {
        do {
            return try await body()
        } catch let refusal as OperatorError {
            switch refusal {
            case .refused(let message): return "refused: \(message)"
            case .notFound(let message): return "not found: \(message)"
            }
        }
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}
