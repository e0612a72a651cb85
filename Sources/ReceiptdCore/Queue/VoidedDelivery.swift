/// A Google purchase that Google lists as voided, to mark in the ledger: all of it, or (with a `quantity` below
/// the ledger row's) some of its units.
package struct VoidedDelivery: Sendable, Equatable {
    /// The ledger id of the purchase (`iap.deliveries.transaction_id`).
    package var transactionID: String
    /// When Google voided it, milliseconds since 1970.
    package var voidedAtMilliseconds: Int64
    /// Why, in words (`revocation_reason`).
    package var reason: String
    /// `voidedQuantity`: the units a quantity-based partial refund voided; nil for a refund of the whole purchase.
    package var quantity: Int? = nil
    /// The purchase token, recorded with a partial refund.
    package var purchaseToken: String? = nil
}
