import HTTPTypes
import Hummingbird
import NIOCore

extension HTTPEndpoint {
    /// A plain-text answer.
    static func answer(_ status: HTTPResponse.Status, _ text: String, close: Bool = false) -> Response {
        answer(status, body: ByteBuffer(string: text), close: close)
    }

    /// An answer of `body`, never cached, with its content length; with `close`, `ConnectionPolicy` closes the
    /// connection once it is sent.
    static func answer(
        _ status: HTTPResponse.Status,
        body: ByteBuffer,
        contentType: String = "text/plain; charset=utf-8",
        close: Bool = false
    ) -> Response {
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        if close { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// Whether the client asked to close the connection after this request's answer (`connection: close`).
    static func closes(_ request: Request) -> Bool {
        request.headers[values: .connection].contains {
            $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}
