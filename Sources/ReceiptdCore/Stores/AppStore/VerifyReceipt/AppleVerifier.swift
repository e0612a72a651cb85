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

    /// Creates a verifier that sends its requests through `client`.
    package init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
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

    /// How long after the client's own deadline the whole-call bound fires. The client keeps retrying a
    /// connection that fails (refused, or a certificate it does not trust) until its deadline and then
    /// reports why; firing at the same instant would race that and often report a bare timeout instead.
    static let wholeCallGrace: Duration = .milliseconds(500)

    /// One call, bounded as a whole (head and body) by the request timeout: a body that drips in slowly
    /// would otherwise hold the request open far past it.
    private func call(_ environment: StoreEnvironment, receiptData: String) async -> AppleCallResult {
        let timeout = configuration.requestTimeout
        return await withTaskGroup(of: AppleCallResult?.self) { group in
            group.addTask { await self.exchange(environment, receiptData: receiptData) }
            group.addTask {
                try? await Task.sleep(for: timeout + Self.wholeCallGrace)
                return Task.isCancelled
                    ? nil : .transport("\(environment.rawValue) endpoint: no complete answer within \(timeout)")
            }
            var result: AppleCallResult = .transport("\(environment.rawValue) endpoint: request cancelled")
            for await finished in group {
                if let finished {
                    result = finished
                    break
                }
            }
            group.cancelAll()
            return result
        }
    }

    private func exchange(_ environment: StoreEnvironment, receiptData: String) async -> AppleCallResult {
        let url = environment == .production ? configuration.productionURL : configuration.sandboxURL
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: requestBody(receiptData: receiptData)))
        do {
            let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
            guard response.status == .ok else {
                let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.delay(from: $0) }
                return .httpStatus(Int(response.status.code), retryAfter: retryAfter)
            }
            let body = try await response.body.collect(upTo: configuration.maximumBodyBytes)
            do {
                return .answered(try AppleResponseParser.parse(Array(buffer: body)), environment: environment)
            } catch {
                return .garbled(error.description)
            }
        } catch is NIOTooManyBytesError {
            return .transport("answer larger than \(configuration.maximumBodyBytes) bytes")
        } catch {
            return .transport("\(environment.rawValue) endpoint: \(Self.describe(error))")
        }
    }

    private func requestBody(receiptData: String) -> String {
        var fields: [(String, JSONText.Value)] = [
            ("receipt-data", .string(receiptData)), ("exclude-old-transactions", .bool(false)),
        ]
        if let secret = configuration.sharedSecret { fields.append(("password", .string(secret))) }
        return JSONText.object(fields)
    }

    /// A short description of a transport error: its type and reason, never the request.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return "\(error)" }
        return "\(type(of: error)): \(error)"
    }
}
