/// What an event reports (`iap.webhook_events.type`, the body's `type`).
package enum WebhookEventType: String, Sendable, Equatable, CaseIterable, Codable {
    /// Units were delivered to an order (the ledger rows one statement added), or it was granted provisionally.
    case orderVerified = "order.verified"
    /// A ledger row was revoked (a refund, a revoke, a void), or a provisional grant refuted or exchanged.
    case deliveryRevoked = "delivery.revoked"
    /// A revocation was lifted.
    case deliveryReinstated = "delivery.reinstated"
    /// A payment nobody ordered was recorded.
    case paymentUnclaimed = "payment.unclaimed"
    /// An order ended `invalid` or `failed`.
    case orderFailed = "order.failed"
    /// A parent or guardian withdrew consent for the player behind an app transaction (Apple's `RESCIND_CONSENT`);
    /// about no order.
    case consentRescinded = "consent.rescinded"
    /// A store asks about a refund (`iap.refund_requests`): the game may answer with `iap.answer_refund_request`.
    case refundRequested = "refund.requested"
}
