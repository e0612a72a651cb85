import HTTPTypes
import Hummingbird
import Logging

extension NotificationServer {
    /// Answers one request. A request answered before its body has arrived (no route, over the limit) closes the
    /// connection, so the rest of the body is never read. The answer to a route's request is written only once
    /// `take` has returned, that is once what it records is committed.
    func answer(to request: Request) async throws -> Response {
        guard let route = routes[request.uri.path] else {
            return HTTPEndpoint.answer(.notFound, "not found\n", close: true)
        }
        guard request.method == .post else {
            return HTTPEndpoint.answer(.methodNotAllowed, "method not allowed: POST only\n", close: true)
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > route.bodyLimit {
            return refuse(tooLarge(route, declared: true), route, close: true)
        }
        var body: [UInt8] = []
        // A broken connection ends the loop with an error: nothing to answer, nothing taken.
        for try await chunk in request.body {
            guard body.count + chunk.readableBytes <= route.bodyLimit else {
                return refuse(tooLarge(route, declared: false), route, close: true)
            }
            body += chunk.readableBytesView
        }
        let close = HTTPEndpoint.closes(request)
        do throws(NotificationRefusal) {
            var headers: [String: String] = [:]
            for field in request.headers where headers[field.name.canonicalName] == nil {
                headers[field.name.canonicalName] = field.value
            }
            switch try await route.take(body, headers: headers) {
            case .recorded(let new):
                return HTTPEndpoint.answer(.ok, new ? "recorded\n" : "already recorded\n", close: close)
            case .skipped: return HTTPEndpoint.answer(.noContent, "", close: close)
            }
        } catch {
            return refuse(error, route, close: close)
        }
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
    private func refuse(_ refusal: NotificationRefusal, _ route: any NotificationRoute, close: Bool) -> Response {
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
        let status = HTTPResponse.Status(code: refusal.status.rawValue)
        return HTTPEndpoint.answer(status, "\(refusal.reason)\n", close: close)
    }
}
