/// One row of `iap.google_finalizations` a daemon claimed: a Google purchase owed its acknowledgement (or consumption).
package struct OwedFinalization: Sendable, Equatable {
    /// The ledger id of the purchase.
    package var transactionID: String
    /// The product, as Google's URL names it.
    package var productID: String
    /// The purchase token.
    package var token: String
    /// The call owed.
    package var action: GoogleFinalizeAction
    /// Tries so far, this one included.
    package var attempts: Int
}
