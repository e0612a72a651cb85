/// One purchase inside a ``SyntheticReceipt``'s `in_app` or `latest_receipt_info`.
///
/// Fields are strings because Apple sends them as strings; to test other
/// shapes (numbers, missing fields) build the receipt JSON by hand instead,
/// since the stand-in copies those arrays verbatim.
package struct SyntheticTransaction: Codable, Sendable, Equatable {
    /// Apple's `transaction_id`.
    package var transactionID: String
    /// Apple's `original_transaction_id`.
    package var originalTransactionID: String
    /// Apple's `product_id`.
    package var productID: String
    /// Apple's `quantity`.
    package var quantity: String
    /// Apple's `purchase_date_ms` (milliseconds since 1970, as a string).
    package var purchaseDateMilliseconds: String
    /// Apple's `cancellation_date_ms`; present only for refunded purchases.
    package var cancellationDateMilliseconds: String?
    /// An auto-renewable's `expires_date_ms`: the end of the period it paid.
    package var expiresDateMilliseconds: String?
    /// An auto-renewable's `subscription_group_identifier`.
    package var subscriptionGroupIdentifier: String?
    /// An auto-renewable's `web_order_line_item_id`.
    package var webOrderLineItemID: String?
    /// `is_trial_period`: `"true"` for a free trial's period.
    package var isTrialPeriod: String?
    /// `is_upgraded`: `"true"` for a period an upgrade replaced.
    package var isUpgraded: String?
    /// `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`.
    package var inAppOwnershipType: String?

    /// Creates a transaction; the original id defaults to the transaction's own id.
    package init(
        transactionID: String,
        originalTransactionID: String? = nil,
        productID: String,
        quantity: String = "1",
        purchaseDateMilliseconds: String,
        cancellationDateMilliseconds: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.cancellationDateMilliseconds = cancellationDateMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity
        case purchaseDateMilliseconds = "purchase_date_ms"
        case cancellationDateMilliseconds = "cancellation_date_ms"
        case expiresDateMilliseconds = "expires_date_ms"
        case subscriptionGroupIdentifier = "subscription_group_identifier"
        case webOrderLineItemID = "web_order_line_item_id"
        case isTrialPeriod = "is_trial_period"
        case isUpgraded = "is_upgraded"
        case inAppOwnershipType = "in_app_ownership_type"
    }
}
