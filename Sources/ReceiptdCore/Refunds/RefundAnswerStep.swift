/// What ``RefundAnswerer`` records after one call: the outcome, given whether an earlier call may already have
/// reached the store. A call that got no answer counts as possibly sent and earns one more call, no more, so that the
/// store is told at most twice (as when a daemon dies mid-call).
package enum RefundAnswerStep: Sendable, Equatable {
    /// The store took it: `answered`.
    case answered
    /// No call was made (no slot free): due again after the delay, the try not counted.
    case postpone(Duration)
    /// Due again with backoff (at the earliest after `notBefore`); `possiblySent` marks the row so that the next
    /// call is the last.
    case retry(String, notBefore: Duration?, possiblySent: Bool)
    /// Refused for good: `failed`.
    case failed(String)
    /// The one extra call brought no confirmation: `unconfirmed`, never called again.
    case unconfirmed(String)

    /// The step after a call that came to `outcome`.
    package static func after(_ outcome: RefundAnswerOutcome, earlierCallPossiblySent: Bool) -> RefundAnswerStep {
        switch outcome {
        case .sent: .answered
        case .postpone(let delay): .postpone(delay)
        case .refused(let reason): .failed(reason)
        case .retry(let reason, let notBefore):
            earlierCallPossiblySent
                ? .unconfirmed("an earlier call got no answer, and the one more call failed: \(reason)")
                : .retry(reason, notBefore: notBefore, possiblySent: false)
        case .unanswered(let reason):
            earlierCallPossiblySent
                ? .unconfirmed("no answer to the call nor to the one more call: \(reason)")
                : .retry(reason, notBefore: nil, possiblySent: true)
        }
    }
}
