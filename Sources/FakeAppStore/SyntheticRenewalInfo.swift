/// One subscription's entry in a ``SyntheticReceipt``'s `pending_renewal_info`: what happens at the end of its
/// current period. Fields are strings, as Apple sends them.
package struct SyntheticRenewalInfo: Codable, Sendable, Equatable {
    /// `original_transaction_id`: the subscription.
    package var originalTransactionID: String
    /// `product_id`: the current period's product.
    package var productID: String
    /// `auto_renew_product_id`: the next period's product.
    package var autoRenewProductID: String
    /// `auto_renew_status`: `"1"` renews, `"0"` does not.
    package var autoRenewStatus: String
    /// `is_in_billing_retry_period`: `"1"` while Apple retries a failed renewal.
    package var isInBillingRetryPeriod: String?
    /// `grace_period_expires_date_ms`, while a grace period runs.
    package var gracePeriodExpiresDateMilliseconds: String?
    /// `expiration_intent`, once it expired.
    package var expirationIntent: String?

    /// Creates an entry.
    package init(
        originalTransactionID: String,
        productID: String,
        autoRenewProductID: String? = nil,
        autoRenewStatus: String = "1",
        isInBillingRetryPeriod: String? = nil,
        gracePeriodExpiresDateMilliseconds: String? = nil,
        expirationIntent: String? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID ?? productID
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMilliseconds = gracePeriodExpiresDateMilliseconds
        self.expirationIntent = expirationIntent
    }

    private enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case autoRenewProductID = "auto_renew_product_id"
        case autoRenewStatus = "auto_renew_status"
        case isInBillingRetryPeriod = "is_in_billing_retry_period"
        case gracePeriodExpiresDateMilliseconds = "grace_period_expires_date_ms"
        case expirationIntent = "expiration_intent"
    }
}
