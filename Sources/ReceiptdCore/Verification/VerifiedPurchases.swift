/// What one store answer vouched for, however it was obtained (a verified receipt, a signed transaction, a
/// Server API lookup): the value the outcome rules take.
package struct VerifiedPurchases: Sendable, Equatable {
    /// The purchases, each transaction once.
    package var purchases: [VerifiedPurchase]
    /// The store environment that vouched for them.
    package var environment: StoreEnvironment
    /// The app the answer is for, as the store named it.
    package var bundleID: String?
    /// The store that answered.
    package var store: Store
    /// For a Google purchase that delivers: the call Google must still get (acknowledge or consume).
    package var finalization: GoogleFinalization?

    /// Creates a value.
    package init(
        purchases: [VerifiedPurchase],
        environment: StoreEnvironment,
        bundleID: String?,
        store: Store = .apple,
        finalization: GoogleFinalization? = nil
    ) {
        self.store = store
        self.finalization = finalization
        self.purchases = purchases
        self.environment = environment
        self.bundleID = bundleID
    }
}
