import Foundation
import Synchronization

/// The stand-in Google Play's state behind one lock: the access tokens issued, what each purchase token has seen
/// (calls, acknowledgement, consumption), the voided purchases, and every call received.
final class GooglePlayLedger: Sendable {
    /// What one purchase token has seen.
    struct Purchase: Sendable {
        /// `products.get` calls so far.
        var lookups = 0
        /// Acknowledged or consumed by a call that was answered 200.
        var acknowledged = false
        var consumed = false
        /// Stands in for the purchase time of a hand-written token that names none.
        var firstSeen = Date()
    }

    /// A voided purchase; `sequence` orders those voided in the same millisecond, for stable pages.
    struct Voided: Sendable {
        var token: String
        var orderID: String?
        var reason: Int
        var purchaseMilliseconds: Int64
        var voidedMilliseconds: Int64
        var sequence: Int
        /// Units a quantity-based partial refund voided; `nil` for the whole purchase.
        var quantity: Int? = nil
    }

    private struct State {
        var accessTokens: [String: Date] = [:]
        var purchases: [String: Purchase] = [:]
        var pendingFailures = 0
        var failureStatus = 503
        var pendingVoidedFailures = 0
        var voidedFailureStatus = 400
        var lookupOutage: Int?
        var voided: [Voided] = []
        var finalizations: [RecordedGoogleFinalization] = []
        var queries: [RecordedGooglePurchaseQuery] = []
        var tokenRequests: [RecordedGoogleTokenRequest] = []
        var voidedQueries: [RecordedGoogleVoidedQuery] = []
        var orders: [String: SyntheticPurchaseToken] = [:]
        var orderQueries: [RecordedGoogleOrderQuery] = []
        var refundReviews: [RecordedGoogleRefundReview] = []
        var pendingReviewFailures = 0
        var reviewFailureStatus = 500
        var reviewHoldMilliseconds = 0
    }

    private let state = Mutex(State())

    /// Issues an opaque access token, valid for `lifetime` seconds unless revoked.
    func issueAccessToken(lifetime: TimeInterval) -> String {
        // SystemRandomNumberGenerator is cryptographically secure: the token cannot be guessed.
        let token =
            "ya29.fake-"
            + (0..<3).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 36) }.joined(separator: "-")
        state.withLock { $0.accessTokens[token] = Date() + lifetime }
        return token
    }

    /// Why an `Authorization` header is refused, or `nil` when it bears a live access token issued here.
    func bearerFailure(_ authorization: String?, now: Date = Date()) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let expires = state.accessTokens[token] else { return "unknown or revoked access token" }
            return expires > now ? nil : "expired access token"
        }
    }

    func revokeAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }

    /// Counts a `products.get` call of `token`; returns what the token had seen before it.
    func lookUp(_ token: String) -> Purchase {
        state.withLock { state in
            let before = state.purchases[token] ?? Purchase()
            state.purchases[token] = before
            state.purchases[token]?.lookups += 1
            return before
        }
    }

    /// Decides and records an acknowledge or consume call at once, so concurrent calls see each other: `decide`
    /// answers from what the token has seen and the failure status pending from ``failFinalizations(_:status:)``,
    /// if any (taken here). A 200 marks the token acknowledged (and consumed).
    func finalize(
        _ token: String,
        productID: String,
        action: RecordedGoogleFinalization.Action,
        decide: (Purchase, _ failure: Int?) -> GooglePlayAnswer
    ) -> GooglePlayAnswer {
        state.withLock { state in
            var failure: Int?
            if state.pendingFailures > 0 {
                state.pendingFailures -= 1
                failure = state.failureStatus
            }
            let answer = decide(state.purchases[token] ?? Purchase(), failure)
            if answer.status == 200 {
                state.purchases[token, default: Purchase()].acknowledged = true
                if action == .consume { state.purchases[token]?.consumed = true }
            }
            state.finalizations.append(
                RecordedGoogleFinalization(
                    token: token,
                    productID: productID,
                    action: action,
                    httpStatus: answer.status,
                    receivedAt: Date()
                )
            )
            return answer
        }
    }

    func failLookups(status: Int?) {
        state.withLock { $0.lookupOutage = status }
    }

    var lookupOutage: Int? { state.withLock { $0.lookupOutage } }

    func failFinalizations(_ count: Int, status: Int) {
        state.withLock {
            $0.pendingFailures = max(0, count)
            $0.failureStatus = status
        }
    }

    func failVoidedQueries(_ count: Int, status: Int) {
        state.withLock {
            $0.pendingVoidedFailures = max(0, count)
            $0.voidedFailureStatus = status
        }
    }

    /// The status the next `voidedpurchases.list` call fails with, if one is to fail.
    func takeVoidedFailure() -> Int? {
        state.withLock { state in
            guard state.pendingVoidedFailures > 0 else { return nil }
            state.pendingVoidedFailures -= 1
            return state.voidedFailureStatus
        }
    }

    func void(
        token: String,
        orderID: String?,
        reason: Int,
        purchaseMilliseconds: Int64?,
        voidedMilliseconds: Int64,
        quantity: Int? = nil
    ) {
        state.withLock { state in
            let purchased =
                purchaseMilliseconds
                ?? state.purchases[token].map { Int64($0.firstSeen.timeIntervalSince1970 * 1000) } ?? voidedMilliseconds
            state.voided.append(
                Voided(
                    token: token,
                    orderID: orderID,
                    reason: reason,
                    purchaseMilliseconds: purchased,
                    voidedMilliseconds: voidedMilliseconds,
                    sequence: state.voided.count,
                    quantity: quantity
                )
            )
        }
    }

    /// The voided purchases in `range` of voided time, oldest first.
    func voided(in range: ClosedRange<Int64>) -> [Voided] {
        state.withLock { $0.voided }
            .filter { range.contains($0.voidedMilliseconds) }
            .sorted { ($0.voidedMilliseconds, $0.sequence) < ($1.voidedMilliseconds, $1.sequence) }
    }

    func record(_ query: RecordedGooglePurchaseQuery) {
        state.withLock { $0.queries.append(query) }
    }

    /// Keeps the purchase whose lookup named `orderID`, for `orders.get`.
    func remember(order orderID: String, of purchase: SyntheticPurchaseToken) {
        state.withLock { $0.orders[orderID] = purchase }
    }

    /// The purchase a lookup named `orderID` for, if any.
    func purchase(ofOrder orderID: String) -> SyntheticPurchaseToken? {
        state.withLock { $0.orders[orderID] }
    }

    func record(_ query: RecordedGoogleOrderQuery) {
        state.withLock { $0.orderQueries.append(query) }
    }

    func record(_ request: RecordedGoogleTokenRequest) {
        state.withLock { $0.tokenRequests.append(request) }
    }

    func record(_ query: RecordedGoogleVoidedQuery) {
        state.withLock { $0.voidedQueries.append(query) }
    }

    /// Records an acknowledge or consume call refused before ``finalize(_:productID:action:decide:)`` (bearer, package).
    func record(_ finalization: RecordedGoogleFinalization) {
        state.withLock { $0.finalizations.append(finalization) }
    }

    func failRefundReviews(_ count: Int, status: Int) {
        state.withLock {
            $0.pendingReviewFailures = max(0, count)
            $0.reviewFailureStatus = status
        }
    }

    func holdRefundReviews(milliseconds: Int) {
        state.withLock { $0.reviewHoldMilliseconds = max(0, milliseconds) }
    }

    /// Records `call` with its answer: `refusal`, else a pending failure, else 200 (kept when it is the first
    /// taken for its token); the answer is held as ``holdRefundReviews(milliseconds:)`` says.
    func reviewRefund(_ call: RecordedGoogleRefundReview, refusal: GooglePlayAnswer?) -> GooglePlayAnswer {
        state.withLock { state in
            var answer: GooglePlayAnswer
            var call = call
            if let refusal {
                answer = refusal
            } else if state.pendingReviewFailures > 0 {
                state.pendingReviewFailures -= 1
                answer = .scripted(state.reviewFailureStatus)
            } else {
                answer = GooglePlayAnswer(status: 200, body: "{}")
                call.kept = !state.refundReviews.contains {
                    $0.kept && $0.pendingRefundToken == call.pendingRefundToken
                }
            }
            call.httpStatus = answer.status
            state.refundReviews.append(call)
            answer.delayMilliseconds += state.reviewHoldMilliseconds
            return answer
        }
    }

    var refundReviews: [RecordedGoogleRefundReview] { state.withLock { $0.refundReviews } }
    var finalizations: [RecordedGoogleFinalization] { state.withLock { $0.finalizations } }
    var queries: [RecordedGooglePurchaseQuery] { state.withLock { $0.queries } }
    var tokenRequests: [RecordedGoogleTokenRequest] { state.withLock { $0.tokenRequests } }
    var voidedQueries: [RecordedGoogleVoidedQuery] { state.withLock { $0.voidedQueries } }
    var orderQueries: [RecordedGoogleOrderQuery] { state.withLock { $0.orderQueries } }
}
