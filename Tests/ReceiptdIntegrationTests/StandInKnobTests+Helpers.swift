import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import NIOCore

extension StandInKnobTests {
    /// Runs `body` against a started stand-in with `configuration` and an HTTP client, then shuts both down.
    func withStandIn(
        _ configuration: AppStoreStandIn.Configuration,
        _ body: (AppStoreStandIn, HTTPClient) async throws -> Void
    ) async throws {
        let standIn = AppStoreStandIn(
            configuration: configuration,
            logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await standIn.start()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await body(standIn, client)
        } catch {
            try? await client.shutdown()
            try? await standIn.shutdown()
            throw error
        }
        try await client.shutdown()
        try await standIn.shutdown()
    }

    /// POSTs a verifyReceipt body for `receipt` and returns the answer's body.
    func post(
        _ receipt: String,
        to url: String,
        client: HTTPClient,
        timeout: TimeAmount = .seconds(5)
    ) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: #"{"receipt-data":"\#(receipt)"}"#))
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return String(buffer: body)
    }

    /// Polls `condition` for up to five seconds.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
