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
    /// A subscription was first recorded.
    case subscriptionStarted = "subscription.started"
    /// A subscription's later period began (its expiry moved on, and it is active).
    case subscriptionRenewed = "subscription.renewed"
    /// A subscription's state or auto-renewal changed otherwise: grace, billing retry, hold, pause, recovery,
    /// renewal turned off or on.
    case subscriptionStateChanged = "subscription.state_changed"
    /// A subscription ended.
    case subscriptionExpired = "subscription.expired"
    /// A subscription was refunded or revoked by the store (Family Sharing ended).
    case subscriptionRevoked = "subscription.revoked"
    /// A subscription moved to another player (`RECEIPTD_SUBSCRIPTION_RESTORE=transfer`).
    case subscriptionTransferred = "subscription.transferred"
}
