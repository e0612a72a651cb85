import Foundation
import ReceiptdCore

/// The real-time developer notifications the stand-in pushes, as Google writes them (version 1.0, the event time
/// now, as milliseconds in a string).
extension GoogleDeveloperNotification {
    /// `ONE_TIME_PRODUCT_PURCHASED` (`canceled` false) or `ONE_TIME_PRODUCT_CANCELED` of `token` for product `sku`.
    package static func oneTimeProduct(
        token: String,
        sku: String,
        canceled: Bool = false,
        packageName: String
    ) -> GoogleDeveloperNotification {
        make(
            packageName,
            "oneTimeProductNotification",
            ["version": "1.0", "notificationType": canceled ? 2 : 1, "purchaseToken": token, "sku": sku]
        )
    }

    /// `VOIDED_PURCHASE` of purchase `token` (`productType` 1 a subscription, 2 a one-time product; `refundType` 1
    /// full, 2 quantity-based partial).
    package static func voided(
        token: String,
        orderID: String?,
        productType: Int = 2,
        refundType: Int = 1,
        packageName: String
    ) -> GoogleDeveloperNotification {
        var fields: [String: Any] = ["purchaseToken": token, "productType": productType, "refundType": refundType]
        if let orderID { fields["orderId"] = orderID }
        return make(packageName, "voidedPurchaseNotification", fields)
    }

    /// `PENDING_REFUND_REVIEW`: a chargeback of order `orderID` Google asks the developer to review, dated
    /// `eventTime`.
    package static func pendingRefundReview(
        token: String,
        orderID: String,
        reason: Int? = nil,
        accountID: String? = nil,
        packageName: String,
        eventTime: Date = Date()
    ) -> GoogleDeveloperNotification {
        var fields: [String: Any] = ["version": "1.0", "pendingRefundToken": token, "orderId": orderID]
        if let reason { fields["refundReason"] = reason }
        if let accountID { fields["obfuscatedAccountId"] = accountID }
        return make(packageName, "pendingRefundReviewNotification", fields, eventTime: eventTime)
    }

    /// A `subscriptionNotification` of type `type` (1 `SUBSCRIPTION_RECOVERED` … 20) about `token`'s subscription to
    /// `productID`.
    package static func subscription(
        token: String,
        productID: String,
        type: Int,
        packageName: String,
        eventTime: Date = Date()
    ) -> GoogleDeveloperNotification {
        make(
            packageName,
            "subscriptionNotification",
            ["version": "1.0", "notificationType": type, "purchaseToken": token, "subscriptionId": productID],
            eventTime: eventTime
        )
    }

    /// `TEST`, as the Play Console's "Send test notification" sends it.
    package static func test(packageName: String) -> GoogleDeveloperNotification {
        make(packageName, "testNotification", ["version": "1.0"])
    }

    /// Decodes the notification `{"version", "packageName", "eventTimeMillis", <kind>: fields}`.
    private static func make(
        _ packageName: String,
        _ kind: String,
        _ fields: [String: Any],
        eventTime: Date = Date()
    ) -> GoogleDeveloperNotification {
        let object: [String: Any] = [
            "version": "1.0", "packageName": packageName,
            "eventTimeMillis": String(Int64(eventTime.timeIntervalSince1970 * 1000)), kind: fields,
        ]
        do {
            return try JSONDecoder().decode(Self.self, from: JSONSerialization.data(withJSONObject: object))
        } catch {
            // The fields above are exactly the type's: decoding them cannot fail.
            preconditionFailure("a stand-in developer notification failed to decode: \(error)")
        }
    }
}
