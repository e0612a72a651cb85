/// Where a subscription is (`iap.subscriptions.state`), the same for every store.
package enum SubscriptionState: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    /// Paid for the current period.
    case active
    /// The renewal failed, and the store still gives the player the service until the grace period ends.
    case gracePeriod = "grace_period"
    /// The renewal failed and the store keeps trying; the player has no service meanwhile.
    case billingRetry = "billing_retry"
    /// Google's account hold: the renewal failed, no service, the store keeps trying.
    case onHold = "on_hold"
    /// Google's pause, chosen by the player.
    case paused
    /// Bought, not yet paid (a pending payment).
    case pending
    /// Ended: not renewed, or the retries gave up.
    case expired
    /// Refunded or revoked by the store (a refund, Family Sharing revoked).
    case revoked

    /// Whether the player may use the service in this state (until `entitled_until`).
    package var entitles: Bool { self == .active || self == .gracePeriod }
}
