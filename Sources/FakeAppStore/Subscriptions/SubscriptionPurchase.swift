import Foundation

/// A first purchase of an auto-renewable subscription at the stand-in (``AppStoreStandIn/subscribe(_:)``).
package struct SubscriptionPurchase: Sendable, Equatable {
    /// The first transaction's id, which is also the subscription's original transaction id.
    package var transactionID: String
    /// The product.
    package var productID: String
    /// The subscription group.
    package var groupID: String
    /// How long each period lasts, in seconds: seconds-long periods let tests and the demo renew in real time.
    package var periodSeconds: Double
    /// The UUID the app attached, lowercase.
    package var appAccountToken: String?
    /// `Production` or `Sandbox`.
    package var environment: String
    /// `PURCHASED`, or `FAMILY_SHARED` for a family member's copy.
    package var ownership: String
    /// Each period's price, in thousandths of the currency's unit; 0 for a free trial.
    package var price: Int64
    /// `FREE_TRIAL` and the like, for an introductory first period.
    package var offerDiscountType: String?

    /// Creates a purchase; a production, purchased, 4.99 USD period unless told otherwise.
    package init(
        transactionID: String,
        productID: String,
        groupID: String = "vip",
        periodSeconds: Double,
        appAccountToken: String? = nil,
        environment: String = "Production",
        ownership: String = "PURCHASED",
        price: Int64 = 4990,
        offerDiscountType: String? = nil
    ) {
        self.transactionID = transactionID
        self.productID = productID
        self.groupID = groupID
        self.periodSeconds = periodSeconds
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.ownership = ownership
        self.price = price
        self.offerDiscountType = offerDiscountType
    }
}
