import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Calls verifyReceipt: production first, the sandbox when production answers 21007 — at most two calls.
package struct AppleVerifier: Sendable {
    /// Endpoints, secret and limits.
    package struct Configuration: Sendable {
        /// Production verifyReceipt URL (`APPLE_VERIFY_URL`).
        package var productionURL = "https://buy.itunes.apple.com/verifyReceipt"
        /// Sandbox verifyReceipt URL (`APPLE_SANDBOX_VERIFY_URL`).
        package var sandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"
        /// App shared secret, sent as `password`; omitted when `nil`.
        package var sharedSecret: String? = nil
        /// Deadline for one HTTP call, connect included.
        package var requestTimeout: Duration = .seconds(30)
        /// Larger answers are treated as a transient failure.
        package var maximumBodyBytes = 4 << 20

        /// Creates a configuration with the defaults above: Apple's endpoints, no secret, a 30 s timeout.
        package init() {}
    }

    let configuration: Configuration
    /// The HTTP client the App Store Server API shares.
    let client: HTTPClient

    /// Each endpoint's request without its body, its URL parsed once; a bad URL's error, which each call reports.
    private let templates:
        (production: Result<HTTPClient.Request, any Error>, sandbox: Result<HTTPClient.Request, any Error>)

    /// Creates a verifier that sends its requests through `client`.
    package init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
        templates = (Self.request(to: configuration.productionURL), Self.request(to: configuration.sandboxURL))
    }

    private static func request(to url: String) -> Result<HTTPClient.Request, any Error> {
        Result { try HTTPClient.Request(url: url, method: .POST, headers: ["Content-Type": "application/json"]) }
    }

    /// Verifies one receipt. Cancelling the calling task aborts the request in flight.
    package func verify(receiptData: String) async -> AppleCallResult {
        let first = await call(.production, receiptData: receiptData)
        if case .answered(let response, _) = first, response.status == 21007 {
            return await call(.sandbox, receiptData: receiptData)
        }
        return first
    }

    /// The longest `verify` can take: two calls, each cut off by its whole-call bound.
    package var longestVerification: Duration { (configuration.requestTimeout + Self.wholeCallGrace) * 2 }

    /// Slack added to each call's bound in `longestVerification`, for the client to report why a call that ran into
    /// its deadline failed (a refused connection it kept retrying, say) before the lease math gives up on it.
    static let wholeCallGrace: Duration = .milliseconds(500)

    /// One call, bounded as a whole (head and body) by the request timeout: a body that drips in slowly would
    /// otherwise hold the request open far past it. The client's own deadline covers the whole exchange when the
    /// body is gathered by its accumulator, so no timer of ours runs per call.
    private func call(_ environment: StoreEnvironment, receiptData: String) async -> AppleCallResult {
        var request: HTTPClient.Request
        do {
            request = try (environment == .production ? templates.production : templates.sandbox).get()
        } catch {
            return .transport("\(environment.rawValue) endpoint: \(Self.describe(error))")
        }
        request.body = .byteBuffer(requestBody(receiptData: receiptData))
        let accumulator = ResponseAccumulator(request: request, maxBodySize: configuration.maximumBodyBytes)
        let task = client.execute(
            request: request,
            delegate: accumulator,
            deadline: .now() + .init(configuration.requestTimeout)
        )
        let response: HTTPClient.Response
        do {
            response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return .transport(
                "\(environment.rawValue) endpoint: no complete answer within \(configuration.requestTimeout)"
            )
        } catch is ResponseAccumulator.ResponseTooBigError {
            return .transport("answer larger than \(configuration.maximumBodyBytes) bytes")
        } catch let error as HTTPClientError where error == .cancelled {
            return .transport("\(environment.rawValue) endpoint: request cancelled")
        } catch {
            return .transport("\(environment.rawValue) endpoint: \(Self.describe(error))")
        }
        guard response.status == .ok else {
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) }
            return .httpStatus(Int(response.status.code), retryAfter: retryAfter)
        }
        do {
            let body = response.body ?? ByteBuffer()
            return .answered(try AppleResponseParser.parse(Array(buffer: body)), environment: environment)
        } catch {
            return .garbled(error.description)
        }
    }

    private func requestBody(receiptData: String) -> ByteBuffer {
        var fields: [(String, JSONText.Value)] = [
            ("receipt-data", .string(receiptData)), ("exclude-old-transactions", .bool(false)),
        ]
        if let secret = configuration.sharedSecret { fields.append(("password", .string(secret))) }
        return ByteBuffer(string: JSONText.object(fields))
    }

    /// A short description of a transport error: its type and reason, never the request.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return "\(error)" }
        return "\(type(of: error)): \(error)"
    }
}
