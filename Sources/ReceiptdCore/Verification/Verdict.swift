/// What to do with a job after one attempt, whichever store answered.
package enum Verdict: Sendable, Equatable {
    /// The store vouched for these purchases: settle the orders from them.
    case verified(VerifiedPurchases)
    /// Try again later, after at least `notBefore` when the server asked for that.
    case retry(TransientFailure)
    /// The store rejected the input for good: the order is `invalid`.
    case reject(reason: String)
    /// Not asked yet, nothing failed (no Server API slot free, a pending Google purchase, a store not configured):
    /// wait `after` without using up an attempt.
    case postpone(after: Duration, reason: String)
}

/// A failure worth retrying.
package struct TransientFailure: Sendable, Equatable {
    /// A short class for metrics and operators: `transport`, `http`, `garbled`, `apple_status`, `malformed`.
    package var errorClass: ErrorClass
    /// A readable reason for `last_error`.
    package var reason: String
    /// How long the server asked us to wait (`Retry-After`), if it did.
    package var notBefore: Duration?
    /// True for a 21002 answer, of which only a few are retried.
    package var isMalformedAnswer: Bool

    /// Creates a transient failure.
    package init(errorClass: ErrorClass, reason: String, notBefore: Duration? = nil, isMalformedAnswer: Bool = false) {
        self.errorClass = errorClass
        self.reason = reason
        self.notBefore = notBefore
        self.isMalformedAnswer = isMalformedAnswer
    }
}
