/// One quantity-based partial refund Google listed (an entry of `purchases.voidedpurchases.list` with a
/// `voidedQuantity`): a row of `iap.google_partial_refunds`.
package struct GooglePartialRefund: Sendable, Equatable {
    /// `voidedTimeMillis`: with the ledger id, what identifies the refund.
    package var voidedAtMilliseconds: Int64
    /// `voidedQuantity`: units refunded.
    package var quantity: Int
    /// The purchase token.
    package var purchaseToken: String

    /// Creates a refund from decoded values.
    package init(voidedAtMilliseconds: Int64, quantity: Int, purchaseToken: String) {
        self.voidedAtMilliseconds = voidedAtMilliseconds
        self.quantity = quantity
        self.purchaseToken = purchaseToken
    }
}
