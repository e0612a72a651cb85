/// Who answered a refund request (`iap.refund_requests.answered_by`).
package enum RefundAnswerSource: String, Sendable, Codable, CaseIterable {
    /// The game, with `iap.answer_refund_request`.
    case game
    /// The policy, when the game stayed silent (or, without Apple's consent, at once).
    case policy
    /// An operator, with `receiptd refunds answer` or the console.
    case `operator`
}
