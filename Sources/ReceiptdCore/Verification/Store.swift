/// Which store vouched for a purchase: `iap.deliveries.store`. The ledger's key `transaction_id` is shared by both stores:
/// Apple's ids are decimal, Google's an `orderId` (`GPA.…`) or a 64-hex token digest, so they cannot collide.
package enum Store: String, Sendable, Codable, CaseIterable {
    /// The App Store (receipts and StoreKit 2 transactions).
    case apple
    /// Google Play.
    case google
}
