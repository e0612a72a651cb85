/// What happens when another game account presents a subscription someone else bought (a restore on a shared
/// device): `RECEIPTD_SUBSCRIPTION_RESTORE`. Either way it costs nobody trust, and its periods pay none of that
/// account's orders.
package enum SubscriptionRestore: String, Sendable, CaseIterable {
    /// The subscription stays with the player who bought it.
    case keep
    /// The subscription moves to the account that presented it (recorded in its history, `subscription.transferred`).
    case transfer
}
