import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends WebDriver (W3C) commands to chromedriver: JSON in, the answer's `value` out, errors as ``WebDriverError``.
struct WebDriverConnection: Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    /// How long one command may take (a navigation waits for the page's load).
    var timeout: Duration = .seconds(60)

    /// Every answer is `{"value": …}`.
    private struct Reply<Value: Decodable>: Decodable {
        let value: Value
    }

    /// Sends `method path` with `body` (JSON) and decodes the answer's `value` as `Value`.
    func send<Value: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body: (any Encodable & Sendable)? = nil,
        as type: Value.Type = Value.self
    ) async throws -> Value {
        let command = "\(method.rawValue) \(path)"
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        } else if method == .POST {
            request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            request.body = .bytes(ByteBuffer(string: "{}"))
        }
        let data: Data
        let status: HTTPResponseStatus
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
            status = response.status
            data = Data(try await response.body.collect(upTo: 64 * 1024 * 1024).readableBytesView)
        } catch {
            throw WebDriverError(error: "client", message: "\(error)", command: command)
        }
        guard status.code < 400 else {
            let failure = try? JSONDecoder().decode(Reply<WebDriverFailure>.self, from: data).value
            throw WebDriverError(
                error: failure?.error ?? "HTTP \(status.code)",
                message: failure?.message ?? String(decoding: data, as: UTF8.self),
                command: command
            )
        }
        do {
            return try JSONDecoder().decode(Reply<Value>.self, from: data).value
        } catch {
            throw WebDriverError(
                error: "client",
                message: "unexpected answer \(String(decoding: data.prefix(500), as: UTF8.self)): \(error)",
                command: command
            )
        }
    }

    /// Sends a command whose answer's value carries nothing of interest (usually `null`).
    func perform(_ method: HTTPMethod, _ path: String, body: (any Encodable & Sendable)? = nil) async throws {
        _ = try await send(method, path, body: body, as: WebDriverIgnored.self)
    }
}

/// The `value` of a failed command.
private struct WebDriverFailure: Decodable {
    let error: String
    let message: String
}

/// A `value` that is ignored, whatever it holds.
private struct WebDriverIgnored: Decodable {
    init(from decoder: any Decoder) throws {}
}
