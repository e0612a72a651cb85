import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoScenario {
    /// One `iap.enqueue_google_purchase` call.
    struct GoogleEnqueue {
        var orderID: String
        var userID: String
        var productID: String
        var token: SyntheticPurchaseToken
        var accountID: String?
    }

    /// The outcome each Google Play order must end with.
    static let expectedGoogleOutcomes: [String: String] = [
        "demo-gp-purchased": "full", "demo-gp-pending": "full", "demo-gp-cancelled": "unmatched",
        "demo-gp-no-ads": "full",
        "demo-gp-replay": "unmatched",
        "demo-gp-account": "unmatched",
        // Settled from Google's notification alone, then refunded.
        "demo-gp-rtdn": "full",
    ]

    /// The catalogue the demo's game declares (`iap.define_product`): gems are consumed once delivered, the ad-free
    /// upgrade is owned for good (acknowledged), in the same store.
    static let catalogue: [(store: String, productID: String, kind: ProductKind)] = [
        ("google", "com.example.gems100", .consumable), ("google", "com.example.no_ads", .nonConsumable),
        ("apple", "com.example.gems100", .consumable),
    ]

    /// Google Play orders: a purchase of gems, one pending (cash) that Google later reports purchased, a cancelled
    /// one, the first purchase's `orderId` sent again by another player, a purchase made by another account than
    /// the order's, and the ad-free upgrade. Only the three that paid are finalized, once each, by their kind: the
    /// gems consumed, the upgrade acknowledged.
    static func googlePurchases() -> [GoogleEnqueue] {
        let gems = "com.example.gems100"
        return [
            GoogleEnqueue(
                orderID: "demo-gp-purchased",
                userID: "rita",
                productID: gems,
                token: SyntheticPurchaseToken(productID: gems, orderID: "GPA.3345-0000-0000-00001")
            ),
            GoogleEnqueue(
                orderID: "demo-gp-pending",
                userID: "sam",
                productID: gems,
                token: SyntheticPurchaseToken(productID: gems, orderID: "GPA.3345-0000-0000-00002", pendingCalls: 1)
            ),
            GoogleEnqueue(
                orderID: "demo-gp-cancelled",
                userID: "tess",
                productID: gems,
                token: SyntheticPurchaseToken(productID: gems, orderID: "GPA.3345-0000-0000-00003", state: 1)
            ),
            GoogleEnqueue(
                orderID: "demo-gp-replay",
                userID: "mallory",
                productID: gems,
                token: SyntheticPurchaseToken(productID: gems, orderID: "GPA.3345-0000-0000-00001")
            ),
            GoogleEnqueue(
                orderID: "demo-gp-account",
                userID: "uma",
                productID: gems,
                token: SyntheticPurchaseToken(
                    productID: gems,
                    orderID: "GPA.3345-0000-0000-00005",
                    accountID: "someone-else"
                ),
                accountID: "uma-account"
            ),
            GoogleEnqueue(
                orderID: "demo-gp-no-ads",
                userID: "vera",
                productID: "com.example.no_ads",
                token: SyntheticPurchaseToken(productID: "com.example.no_ads", orderID: "GPA.3345-0000-0000-00006")
            ),
        ]
    }
}
