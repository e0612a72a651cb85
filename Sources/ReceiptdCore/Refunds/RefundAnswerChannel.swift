/// How one store is told a refund answer: the body for an owed answer, and the call. ``RefundAnswerer`` claims,
/// leases and records; a channel only speaks to its store.
package protocol RefundAnswerChannel: Sendable {
    /// The store it answers.
    var store: Store { get }
    /// The call for `owed`: its body and, for Apple, the delivery status it states.
    func prepare(_ owed: OwedRefundAnswer) -> RefundAnswerCall
    /// Sends `call`; never throws: every failure is an outcome.
    func send(_ call: RefundAnswerCall, for owed: OwedRefundAnswer) async -> RefundAnswerOutcome
}

/// One answer as a store is sent it.
package struct RefundAnswerCall: Sendable, Equatable {
    /// The JSON body, kept in `iap.refund_requests.request_body` once taken.
    package var body: String
    /// Apple's `deliveryStatus`; nil for Google.
    package var deliveryStatus: String?
}

/// What one call to a store came to.
package enum RefundAnswerOutcome: Sendable, Equatable {
    /// The store took the answer.
    case sent
    /// No call slot was free: due again after the delay, the try not counted.
    case postpone(Duration)
    /// A transient failure: retried with backoff (at the earliest after `notBefore`) until the deadline.
    case retry(String, notBefore: Duration?)
    /// The request went out and no answer came (a timeout, a connection dropped): the store may have taken it.
    case unanswered(String)
    /// The store refused it for good.
    case refused(String)
}
