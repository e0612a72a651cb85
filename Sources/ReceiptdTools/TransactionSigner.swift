import AsyncHTTPClient
import FakeAppStore
import Foundation
import NIOCore

/// Mints StoreKit 2 signed transactions for load runs: with a stand-in's chain in this process, or by asking a
/// `receiptd fake-appstore` running elsewhere (`POST /fake/sign`), whose root the daemons trust.
package enum TransactionSigner: Sendable {
    /// Signs with this chain.
    case chain(AppleTestChain)
    /// Asks the stand-in at this base URL (`http://HOST:PORT`).
    case standIn(baseURL: String)

    func sign(_ payload: SignedTransactionPayload) async throws -> String {
        switch self {
        case .chain(let chain):
            return chain.signedTransaction(payload)
        case .standIn(let baseURL):
            var request = HTTPClientRequest(url: baseURL + "/fake/sign")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONEncoder().encode(payload))))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw ToolError(
                    "\(baseURL)/fake/sign answered HTTP \(response.status.code): is `receiptd fake-appstore` running there?"
                )
            }
            return String(buffer: body)
        }
    }
}
