/// Where a refund request is (`iap.refund_requests.state`).
package enum RefundRequestState: String, Sendable, Codable, CaseIterable {
    /// The game is asked; the policy answers when it stays silent.
    case waiting
    /// Answered (by the game, the policy or an operator); the answer is being sent to the store.
    case answering
    /// The store took the answer (or, without the player's consent, nothing may be sent: `last_error` "no consent").
    case answered
    /// Not answered before the deadline: the store decided without it.
    case expired
    /// The store refused the answer for good.
    case failed
    /// A call got no answer (it may have reached the store), and the one more call allowed brought no confirmation
    /// either: the store may or may not have the answer, and is not called again.
    case unconfirmed
}
