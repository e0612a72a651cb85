/// What happens to a stand-in subscription (``AppStoreStandIn/changeSubscription(_:_:notify:)``), each with the
/// notification Apple sends for it.
package enum SubscriptionChange: Sendable, Equatable {
    /// The next period is paid (`DID_RENEW`; `BILLING_RECOVERY` after a failed renewal), in the product the renewal
    /// info names.
    case renew
    /// The renewal fails: billing retry, with a grace period of that many seconds when given (`DID_FAIL_TO_RENEW`,
    /// subtype `GRACE_PERIOD` with one).
    case failRenewal(graceSeconds: Double?)
    /// The grace period ends while Apple keeps retrying (`GRACE_PERIOD_EXPIRED`).
    case endGracePeriod
    /// The player turns renewal off or on (`DID_CHANGE_RENEWAL_STATUS`).
    case setAutoRenew(Bool)
    /// The subscription ends (`EXPIRED`: `VOLUNTARY` after renewal was turned off, else `BILLING_RETRY`).
    case expire
    /// A period is refunded (`REFUND`); the latest when no id is given.
    case refund(transactionID: String?)
    /// A refund is reversed (`REFUND_REVERSED`).
    case reverseRefund(transactionID: String)
    /// An upgrade to a higher product of the group, at once: the latest transaction becomes `isUpgraded`, and a new
    /// period of `product` begins now (`DID_CHANGE_RENEWAL_PREF`, subtype `UPGRADE`).
    case upgrade(to: String)
    /// A downgrade at the next renewal (`DID_CHANGE_RENEWAL_PREF`, subtype `DOWNGRADE`).
    case downgrade(to: String)
    /// Family Sharing ends for a family member's copy (`REVOKE`).
    case revoke
}
