/// A delivered Google purchase that Google lists as voided, to mark in the ledger.
package struct VoidedDelivery: Sendable, Equatable {
    /// The ledger id of the purchase (`iap.deliveries.transaction_id`).
    package var transactionID: String
    /// When Google voided it, milliseconds since 1970.
    package var voidedAtMilliseconds: Int64
    /// Why, in words (`revocation_reason`).
    package var reason: String
}
