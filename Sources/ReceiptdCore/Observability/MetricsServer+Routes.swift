import HTTPTypes
import Hummingbird
import NIOCore

extension MetricsServer {
    /// Routes a request: `GET` or `HEAD` of `/metrics`, `/healthz` and `/readyz`.
    func answer(to request: Request) async -> Response {
        let close = HTTPEndpoint.closes(request)
        guard request.method == .get || request.method == .head else {
            return HTTPEndpoint.answer(.methodNotAllowed, "method not allowed\n", close: close)
        }
        switch request.uri.path {
        case "/metrics":
            return HTTPEndpoint.answer(
                .ok,
                body: ByteBuffer(bytes: registry.emitToBuffer()),
                contentType: "text/plain; version=0.0.4; charset=utf-8",
                close: close
            )
        case "/healthz":
            return HTTPEndpoint.answer(.ok, "ok\n", close: close)
        case "/readyz":
            return await readiness()
                ? HTTPEndpoint.answer(.ok, "ready\n", close: close)
                : HTTPEndpoint.answer(.serviceUnavailable, "database not answering\n", close: close)
        default:
            return HTTPEndpoint.answer(.notFound, "not found\n", close: close)
        }
    }
}
