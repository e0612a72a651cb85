import FakeAppStore
import Foundation
import ReceiptdCore

/// How many signed transactions one core verifies per second, the way the daemon does (chain cached for 15
/// minutes) and with the chain verified every time: offline verification must not be what limits the daemon.
package struct SignedTransactionThroughput: Sendable, Codable {
    /// Verifications per second with the chain cached.
    package var cachedChainPerSecond: Double
    /// Verifications per second with a cold cache each time.
    package var coldChainPerSecond: Double

    /// Verifies distinct transactions signed by `chain` on this task, for about `seconds` each way.
    static func measure(chain: AppleTestChain, seconds: Double = 2) async throws -> SignedTransactionThroughput {
        let signed = (0..<500).map {
            chain.signedTransaction(SignedTransactionPayload(transactionId: "\(9_000_000 + $0)", productId: "gems"))
        }
        let shared = SignedTransactionVerifier(roots: [chain.root])
        let cached = try await rate(seconds: seconds) { index in
            _ = try await shared.verify(signed[index % signed.count])
        }
        let cold = try await rate(seconds: seconds) { index in
            _ = try await SignedTransactionVerifier(roots: [chain.root]).verify(signed[index % signed.count])
        }
        return SignedTransactionThroughput(cachedChainPerSecond: cached, coldChainPerSecond: cold)
    }

    private static func rate(seconds: Double, _ body: (Int) async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while clock.now - start < .seconds(seconds) {
            try await body(count)
            count += 1
        }
        return Double(count) / (clock.now - start).seconds
    }
}
