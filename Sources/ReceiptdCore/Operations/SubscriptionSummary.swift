/// One subscription of a player as operators see it (`iap.subscriptions`), with its paid periods and the states it
/// went through.
package struct SubscriptionSummary: Sendable, Codable, Equatable {
    /// One paid period: a ledger row naming the subscription.
    package struct Period: Sendable, Codable, Equatable {
        /// The transaction that paid it.
        package var transactionID: String
        /// The order it paid.
        package var orderID: String
        /// The period (ISO-8601, UTC; so are the other times).
        package var periodStart: String?
        package var periodEnd: String?
        /// When the game granted it; nil while owed.
        package var grantedAt: String?
        /// When it was refunded or revoked.
        package var revokedAt: String?
    }

    /// One entry of `iap.subscription_history`.
    package struct Change: Sendable, Codable, Equatable {
        /// When receiptd recorded it.
        package var at: String
        /// The state then.
        package var state: String
        /// The product then.
        package var productID: String
        /// The entitlement then.
        package var entitledUntil: String?
        /// Whether it renewed by itself then.
        package var autoRenew: Bool
    }

    /// `apple:<originalTransactionId>`.
    package var subscriptionID: String
    /// The store.
    package var store: Store
    /// The player.
    package var userID: String
    /// The checkout that started it.
    package var orderID: String?
    /// What the player has now, and the next period's product after a downgrade.
    package var productID: String
    package var renewsTo: String?
    /// Where it is.
    package var state: String
    /// The end of what the player may use now.
    package var entitledUntil: String?
    /// The end of the current or last period.
    package var expiresAt: String?
    /// Whether it renews by itself.
    package var autoRenew: Bool
    /// `purchased` or `family_shared`.
    package var ownership: String
    /// `Production` or `Sandbox`.
    package var environment: String
    /// The store's time of the news it reflects.
    package var storeTime: String?
    /// Its paid periods, oldest first.
    package var periods: [Period]
    /// Its states, oldest first.
    package var history: [Change]
}
