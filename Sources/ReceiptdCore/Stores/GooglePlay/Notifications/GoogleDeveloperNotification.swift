/// A real-time developer notification: the JSON inside a Pub/Sub push message's base64 `data`. Exactly one of
/// the notification fields is set; the rest of Google's fields are kept in the stored payload as sent.
package struct GoogleDeveloperNotification: Codable, Sendable, Equatable {
    /// `oneTimeProductNotification`: a one-time product purchased (1) or a pending purchase cancelled (2).
    package struct OneTimeProduct: Codable, Sendable, Equatable {
        /// 1 `ONE_TIME_PRODUCT_PURCHASED`, 2 `ONE_TIME_PRODUCT_CANCELED`.
        package var notificationType: Int
        /// The purchase's token.
        package var purchaseToken: String
        /// The product id.
        package var sku: String
    }

    /// `voidedPurchaseNotification`: a purchase refunded, charged back or revoked.
    package struct VoidedPurchase: Codable, Sendable, Equatable {
        /// The purchase's token.
        package var purchaseToken: String
        /// Its `orderId` (`GPA.…`), when it has one.
        package var orderId: String?
        /// 1 subscription, 2 one-time product.
        package var productType: Int?
        /// 1 full refund, 2 quantity-based partial refund.
        package var refundType: Int?
    }

    /// `pendingRefundReviewNotification`: a buyer's bank disputes a purchase, and Google asks the developer's view
    /// within 24 hours of the event (`orders.reviewrefund`).
    package struct PendingRefundReview: Codable, Sendable, Equatable {
        /// The token the answer must carry; it names the request.
        package var pendingRefundToken: String
        /// The disputed order (`GPA.…`).
        package var orderId: String
        /// Google's reason code, when it gives one.
        package var refundReason: Int?
        /// The buyer's `obfuscatedExternalAccountId`, when the purchase had one.
        package var obfuscatedAccountId: String?
    }

    /// `subscriptionNotification`.
    package struct Subscription: Codable, Sendable, Equatable {
        /// Google's subscription notification type (1 `SUBSCRIPTION_RECOVERED` … 20 `SUBSCRIPTION_PENDING_PURCHASE_CANCELED`).
        package var notificationType: Int
        /// The subscription's purchase token.
        package var purchaseToken: String?
        /// The subscription's product (`subscriptionId`).
        package var subscriptionId: String?
    }

    /// `"1.0"`.
    package var version: String?
    /// The app's package; a topic may carry several apps'.
    package var packageName: String
    /// When the event happened, milliseconds since 1970 (a decimal string in Google's JSON).
    package var eventTimeMillis: String?
    /// Set for a one-time product notification.
    package var oneTimeProductNotification: OneTimeProduct?
    /// Set for a voided purchase notification.
    package var voidedPurchaseNotification: VoidedPurchase?
    /// Set for a subscription notification.
    package var subscriptionNotification: Subscription?
    /// Set for a chargeback Google asks the developer to review.
    package var pendingRefundReviewNotification: PendingRefundReview?
    /// Set for the Play Console's test notification (its contents are only a version).
    package var testNotification: [String: String]?

    /// The `notification_type` it is recorded with: `ONE_TIME_PRODUCT_PURCHASED`, `ONE_TIME_PRODUCT_CANCELED`,
    /// `VOIDED_PURCHASE`, `PENDING_REFUND_REVIEW`, `TEST`, a subscription type's name, or `UNKNOWN` (a kind this build does not know).
    package var typeName: String {
        if let oneTime = oneTimeProductNotification {
            switch oneTime.notificationType {
            case 1: return "ONE_TIME_PRODUCT_PURCHASED"
            case 2: return "ONE_TIME_PRODUCT_CANCELED"
            default: return "ONE_TIME_PRODUCT_\(oneTime.notificationType)"
            }
        }
        if voidedPurchaseNotification != nil { return "VOIDED_PURCHASE" }
        if pendingRefundReviewNotification != nil { return "PENDING_REFUND_REVIEW" }
        if testNotification != nil { return "TEST" }
        if let subscription = subscriptionNotification {
            return Self.subscriptionTypeNames[subscription.notificationType]
                ?? "SUBSCRIPTION_\(subscription.notificationType)"
        }
        return "UNKNOWN"
    }

    /// Google's names of the subscription notification types.
    static let subscriptionTypeNames: [Int: String] = [
        1: "SUBSCRIPTION_RECOVERED", 2: "SUBSCRIPTION_RENEWED", 3: "SUBSCRIPTION_CANCELED",
        4: "SUBSCRIPTION_PURCHASED", 5: "SUBSCRIPTION_ON_HOLD", 6: "SUBSCRIPTION_IN_GRACE_PERIOD",
        7: "SUBSCRIPTION_RESTARTED", 8: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED", 9: "SUBSCRIPTION_DEFERRED",
        10: "SUBSCRIPTION_PAUSED", 11: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED", 12: "SUBSCRIPTION_REVOKED",
        13: "SUBSCRIPTION_EXPIRED", 17: "SUBSCRIPTION_ITEMS_CHANGED", 18: "SUBSCRIPTION_CANCELLATION_SCHEDULED",
        19: "SUBSCRIPTION_PRICE_CHANGE_UPDATED", 20: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED",
    ]

    /// True when processing needs Google's answer first: a purchase (productsv2, or subscriptionsv2 for
    /// `SUBSCRIPTION_PURCHASED`, names its buyer's `obfuscatedExternalAccountId`) and a quantity-based partial refund (the voided purchases list has its
    /// `voidedQuantity`).
    package var needsLookup: Bool {
        if let oneTime = oneTimeProductNotification { return oneTime.notificationType == 1 }
        // A subscription bought: subscriptionsv2 names its buyer, for one no client reported.
        if let subscription = subscriptionNotification {
            return subscription.notificationType == 4 && subscription.purchaseToken != nil
        }
        if let voided = voidedPurchaseNotification { return voided.refundType == 2 }
        return false
    }
}
