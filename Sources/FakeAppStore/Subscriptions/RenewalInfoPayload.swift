/// The decoded payload of an auto-renewable's signed renewal info (`JWSRenewalInfoDecodedPayload`), as the stand-in
/// signs it: the fields receiptd reads, with Apple's JSON keys (dates in milliseconds since 1970).
package struct RenewalInfoPayload: Codable, Sendable, Equatable, SortedJSONPayload {
    /// The subscription.
    package var originalTransactionId: String
    /// The current period's product.
    package var productId: String
    /// The next period's product.
    package var autoRenewProductId: String
    /// 1 renews by itself, 0 turned off.
    package var autoRenewStatus: Int
    /// Whether Apple is retrying a failed renewal.
    package var isInBillingRetryPeriod: Bool
    /// Until when a failed renewal still gives the service.
    package var gracePeriodExpiresDate: Int64?
    /// Why it expired.
    package var expirationIntent: Int?
    /// When the next period begins.
    package var renewalDate: Int64?
    /// `Production` or `Sandbox`.
    package var environment: String
    /// When Apple signed it.
    package var signedDate: Int64

    /// Creates one: a subscription that renews itself into the same product, in production, signed now, unless told
    /// otherwise.
    package init(
        originalTransactionId: String,
        productId: String,
        autoRenewProductId: String? = nil,
        autoRenewStatus: Int = 1,
        isInBillingRetryPeriod: Bool = false,
        gracePeriodExpiresDate: Int64? = nil,
        expirationIntent: Int? = nil,
        renewalDate: Int64? = nil,
        environment: String = "Production",
        signedDate: Int64 = SignedTransactionPayload.nowMilliseconds()
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId ?? productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.renewalDate = renewalDate
        self.environment = environment
        self.signedDate = signedDate
    }
}
