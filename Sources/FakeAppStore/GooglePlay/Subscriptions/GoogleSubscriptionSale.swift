/// A first purchase of a Google Play subscription at the stand-in (``GooglePlayStandIn/subscribe(_:)``).
package struct GoogleSubscriptionSale: Sendable, Equatable {
    /// The subscription's product id.
    package var productID: String
    /// Its base plan (`offerDetails.basePlanId`).
    package var basePlanID: String
    /// How long each period lasts, in seconds: seconds-long periods let tests and the demo renew in real time.
    package var periodSeconds: Double
    /// `externalAccountIdentifiers.obfuscatedExternalAccountId`, when the app set one.
    package var accountID: String?
    /// The first order (`GPA.…`); nil makes one up.
    package var orderID: String?
    /// A prepaid plan: no auto-renewal, extended by top-ups.
    package var prepaid: Bool
    /// A license tester's subscription (`testPurchase`).
    package var testPurchase: Bool
    /// Bought, not yet paid (`SUBSCRIPTION_STATE_PENDING`) until ``GoogleSubscriptionChange/completePending``.
    package var pending: Bool

    /// Creates a sale.
    package init(
        productID: String,
        basePlanID: String = "monthly",
        periodSeconds: Double,
        accountID: String? = nil,
        orderID: String? = nil,
        prepaid: Bool = false,
        testPurchase: Bool = false,
        pending: Bool = false
    ) {
        self.productID = productID
        self.basePlanID = basePlanID
        self.periodSeconds = periodSeconds
        self.accountID = accountID
        self.orderID = orderID
        self.prepaid = prepaid
        self.testPurchase = testPurchase
        self.pending = pending
    }
}
