import Foundation

/// What a store says of one subscription at one time, store-neutral: the row of `iap.subscriptions` it makes
/// (older than the row's `store_time`, it changes nothing).
package struct SubscriptionSnapshot: Sendable, Equatable {
    /// `apple:<originalTransactionId>`.
    package var subscriptionID: String
    /// The store.
    package var store: Store
    /// What the player has now.
    package var productID: String
    /// The next period's product, when a downgrade or crossgrade changes it at the renewal.
    package var renewsTo: String?
    /// Apple's subscription group.
    package var groupID: String?
    /// Where it is.
    package var state: SubscriptionState
    /// The end of what the player may use now; nil when the state gives nothing.
    package var entitledUntil: Date?
    /// The end of the current (or last) period.
    package var expiresAt: Date?
    /// Whether it renews by itself at `expiresAt`.
    package var autoRenew: Bool
    /// Whether the news says what happens at the period's end (`autoRenew`, `renewsTo`): a signed transaction
    /// alone does not, and the row keeps what it knows.
    package var renewalKnown = true
    /// `Production` or `Sandbox`.
    package var environment: String
    /// `purchased`, or `family_shared` for a member of the buyer's family.
    package var ownership: String
    /// The transaction of the latest period.
    package var latestTransactionID: String?
    /// The store's time of the news it reflects.
    package var storeTime: Date
    /// Google's purchase token the subscription is read again with (the latest of its chain); nil for Apple's.
    package var purchaseToken: String?
    /// Google's `linkedPurchaseToken`: the token this one replaced (an upgrade, a downgrade, a resubscription before
    /// expiry, a prepaid top-up), whose subscription this one continues.
    package var replacesToken: String?

    /// Creates one; `entitledUntil` is dropped when `state` entitles to nothing, as `iap.subscriptions` requires.
    package init(
        subscriptionID: String,
        store: Store,
        productID: String,
        renewsTo: String? = nil,
        groupID: String? = nil,
        state: SubscriptionState,
        entitledUntil: Date?,
        expiresAt: Date?,
        autoRenew: Bool,
        environment: String,
        ownership: String = "purchased",
        latestTransactionID: String?,
        storeTime: Date,
        purchaseToken: String? = nil
    ) {
        self.purchaseToken = purchaseToken
        self.subscriptionID = subscriptionID
        self.store = store
        self.productID = productID
        self.renewsTo = renewsTo
        self.groupID = groupID
        self.state = state
        self.entitledUntil = state.entitles ? entitledUntil : nil
        self.expiresAt = expiresAt
        self.autoRenew = autoRenew
        self.environment = environment
        self.ownership = ownership
        self.latestTransactionID = latestTransactionID
        self.storeTime = storeTime
    }
}
