import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends one event as Standard Webhooks specifies: `POST` with `webhook-id`, `webhook-timestamp` (this attempt's
/// Unix seconds) and `webhook-signature` (every secret's `v1,<base64>`), the whole answer within the timeout.
/// Redirects are not followed: a receiver that moved answers 3xx, which is a failed attempt.
package struct WebhookSender: Sendable {
    private let client: HTTPClient
    private let url: String
    private let secrets: WebhookSecrets
    private let timeout: Duration

    /// A sender over `client`, which must not follow redirects (``makeClient(concurrency:)``).
    package init(client: HTTPClient, url: String, secrets: WebhookSecrets, timeout: Duration) {
        self.client = client
        self.url = url
        self.secrets = secrets
        self.timeout = timeout
    }

    /// An HTTP client for webhooks: redirects refused, `concurrency` connections to the endpoint.
    package static func makeClient(concurrency: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(10)
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, concurrency)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The request for `event` signed at `timestamp` (Unix seconds).
    package func request(for event: OwedWebhookEvent, timestamp: Int64) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        let body = Array(event.body.utf8)
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "receiptd")
        request.headers.add(name: "webhook-id", value: event.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: secrets.header(id: event.id, timestamp: timestamp, body: body)
        )
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }

    /// One attempt, signed now; never throws: a failure is an answer without a status.
    package func send(_ event: OwedWebhookEvent) async -> WebhookAnswer {
        let request = request(for: event, timestamp: Int64(Date().timeIntervalSince1970))
        let (client, timeout) = (self.client, self.timeout)
        do {
            return try await withThrowingTaskGroup(of: WebhookAnswer.self) { group in
                group.addTask {
                    // The racing sleep below ends the attempt; the client's own deadline is only a backstop, a
                    // second later, so that a timeout always reads the same.
                    let response = try await client.execute(request, timeout: .init(timeout + .seconds(1)))
                    // The start of the body is kept for last_error; past 64 KiB the rest is not read.
                    var start: [UInt8] = []
                    var read = 0
                    for try await chunk in response.body {
                        read += chunk.readableBytes
                        start += chunk.readableBytesView.prefix(max(0, 200 - start.count))
                        if read > 1 << 16 { break }
                    }
                    let status = Int(response.status.code)
                    guard !(200..<300).contains(status) else { return WebhookAnswer(status: status) }
                    let text = String(decoding: start, as: UTF8.self)
                    return WebhookAnswer(
                        status: status,
                        retryAfter: response.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) },
                        error: "HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
                    )
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return WebhookAnswer(status: nil, error: "no answer within \(timeout)")
                }
                defer { group.cancelAll() }
                return try await group.next() ?? WebhookAnswer(status: nil, error: "no answer")
            }
        } catch {
            return WebhookAnswer(status: nil, error: "\(error)")
        }
    }
}
