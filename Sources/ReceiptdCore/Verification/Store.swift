/// Which store vouched for a purchase: `iap.deliveries.store`. A transaction id is unique per store.
public enum Store: String, Sendable, Codable, CaseIterable {
    /// The App Store (receipts and StoreKit 2 transactions).
    case apple
    /// Google Play.
    case google
}
