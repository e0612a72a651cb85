import Foundation

/// The fields of a subscription's signed renewal info (`JWSRenewalInfoDecodedPayload`) that receiptd acts on: what
/// happens at the end of the current period.
package struct AppleRenewalInfo: Sendable, Equatable {
    /// `originalTransactionId`: the subscription.
    package var originalTransactionID: String
    /// `productId`: the current period's product.
    package var productID: String?
    /// `autoRenewProductId`: the next period's product (another after a downgrade or crossgrade).
    package var autoRenewProductID: String?
    /// `autoRenewStatus`: whether it renews by itself.
    package var autoRenews: Bool
    /// `isInBillingRetryPeriod`: the renewal failed and Apple keeps trying.
    package var isInBillingRetry: Bool
    /// `gracePeriodExpiresDate`: until when a failed renewal still gives the service.
    package var gracePeriodExpires: Date?
    /// `expirationIntent`: why it expired (1 cancelled, 2 billing error, 3 price increase refused, 4 product not for
    /// sale, 5 other).
    package var expirationIntent: Int?
    /// `environment`.
    package var environment: String?
    /// `signedDate`.
    package var signedDate: Date

    /// Creates renewal info from what a store said another way (verifyReceipt's `pending_renewal_info`).
    package init(
        originalTransactionID: String,
        productID: String? = nil,
        autoRenewProductID: String? = nil,
        autoRenews: Bool = true,
        isInBillingRetry: Bool = false,
        gracePeriodExpires: Date? = nil,
        expirationIntent: Int? = nil,
        environment: String? = nil,
        signedDate: Date
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenews = autoRenews
        self.isInBillingRetry = isInBillingRetry
        self.gracePeriodExpires = gracePeriodExpires
        self.expirationIntent = expirationIntent
        self.environment = environment
        self.signedDate = signedDate
    }

    /// Reads a verified payload.
    package init(json: Data) throws(SignedTransaction.FormatError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw SignedTransaction.FormatError(description: "renewal info is not a JSON object")
        }
        guard let original = FlexibleJSON.string(fields["originalTransactionId"]), !original.isEmpty else {
            throw SignedTransaction.FormatError(description: "renewal info has no originalTransactionId")
        }
        guard let signed = FlexibleJSON.integer(fields["signedDate"]) else {
            throw SignedTransaction.FormatError(description: "renewal info has no signedDate")
        }
        func date(_ key: String) -> Date? {
            FlexibleJSON.integer(fields[key]).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        originalTransactionID = original
        productID = fields["productId"] as? String
        autoRenewProductID = fields["autoRenewProductId"] as? String
        autoRenews = FlexibleJSON.integer(fields["autoRenewStatus"]).map { $0 == 1 } ?? true
        isInBillingRetry = FlexibleJSON.bool(fields["isInBillingRetryPeriod"]) ?? false
        gracePeriodExpires = date("gracePeriodExpiresDate")
        expirationIntent = FlexibleJSON.integer(fields["expirationIntent"]).map { Int(clamping: $0) }
        environment = fields["environment"] as? String
        signedDate = Date(timeIntervalSince1970: Double(signed) / 1000)
    }
}
