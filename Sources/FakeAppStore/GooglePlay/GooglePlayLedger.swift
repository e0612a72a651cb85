import Foundation
import Synchronization

/// The stand-in Google Play's state: access tokens issued, each token's lookups and finalization, voided
/// purchases, and every call received.
final class GooglePlayLedger: Sendable {
    struct Voided: Sendable {
        var token: String
        var orderID: String?
        var reason: Int
        var voidedMilliseconds: Int64
        var purchaseMilliseconds: Int64
    }

    private struct State {
        var accessTokens: [String: Date] = [:]
        var lookups: [String: Int] = [:]
        var acknowledged: Set<String> = []
        var consumed: Set<String> = []
        var failFinalizations = 0
        var failStatus = 503
        var voided: [Voided] = []
        var finalizations: [RecordedGoogleFinalization] = []
        var queries: [RecordedGooglePurchaseQuery] = []
        var tokenRequests: [RecordedGoogleTokenRequest] = []
    }

    private let state = Mutex(State())

    func issueAccessToken(lifetime: TimeInterval) -> String {
        let token = "ya29.test-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        state.withLock { $0.accessTokens[token] = Date() + lifetime }
        return token
    }

    /// Why `bearer` is refused, or `nil` when it is a live token this stand-in issued.
    func bearerFailure(_ authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let expires = state.accessTokens[token] else { return "unknown or revoked access token" }
            return expires > Date() ? nil : "expired access token"
        }
    }

    func revokeAccessTokens() { state.withLock { $0.accessTokens.removeAll() } }

    /// Counts a lookup of `token`; returns how many came before.
    func countLookup(_ token: String) -> Int {
        state.withLock { state in
            defer { state.lookups[token, default: 0] += 1 }
            return state.lookups[token, default: 0]
        }
    }

    func isAcknowledged(_ token: String) -> Bool { state.withLock { $0.acknowledged.contains(token) || $0.consumed.contains(token) } }
    func isConsumed(_ token: String) -> Bool { state.withLock { $0.consumed.contains(token) } }

    /// Records a finalization call; returns the failure status to answer when one is scripted.
    func finalize(_ token: String, productID: String, action: RecordedGoogleFinalization.Action, status: (Int?) -> Int) -> Int {
        state.withLock { state in
            var scripted: Int?
            if state.failFinalizations > 0 {
                state.failFinalizations -= 1
                scripted = state.failStatus
            }
            let answered = status(scripted)
            if answered == 200 || answered == 204 {
                state.acknowledged.insert(token)
                if action == .consume { state.consumed.insert(token) }
            }
            state.finalizations.append(RecordedGoogleFinalization(token: token, productID: productID, action: action,
                                                                  httpStatus: answered, receivedAt: Date()))
            return answered
        }
    }

    func failFinalizations(_ count: Int, status: Int) {
        state.withLock {
            $0.failFinalizations = count
            $0.failStatus = status
        }
    }

    func void(_ entry: Voided) { state.withLock { $0.voided.append(entry) } }

    func voided(since start: Int64) -> [Voided] {
        state.withLock { $0.voided.filter { $0.voidedMilliseconds >= start }.sorted { $0.voidedMilliseconds < $1.voidedMilliseconds } }
    }

    func record(_ query: RecordedGooglePurchaseQuery) { state.withLock { $0.queries.append(query) } }
    func record(_ request: RecordedGoogleTokenRequest) { state.withLock { $0.tokenRequests.append(request) } }
    var finalizations: [RecordedGoogleFinalization] { state.withLock { $0.finalizations } }
    var queries: [RecordedGooglePurchaseQuery] { state.withLock { $0.queries } }
    var tokenRequests: [RecordedGoogleTokenRequest] { state.withLock { $0.tokenRequests } }
}
