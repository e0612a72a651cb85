/// What kind of product a purchase is of, as the catalogue (`iap.products.kind`) and the ledger
/// (`iap.deliveries.product_kind`) name it.
package enum ProductKind: String, Sendable, Codable, CaseIterable {
    /// Used up once delivered and bought again (gems, coins).
    case consumable
    /// Bought once and owned for good (a level pack, no ads).
    case nonConsumable = "non_consumable"
    /// A subscription the store renews until it is cancelled.
    case autoRenewable = "auto_renewable"
    /// A subscription for a fixed time that the store does not renew (App Store only).
    case nonRenewing = "non_renewing"

    /// The kind a StoreKit 2 signed transaction's `type` names; `nil` for a type the App Store did not document.
    package init?(appleType: String) {
        switch appleType {
        case "Consumable": self = .consumable
        case "Non-Consumable": self = .nonConsumable
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: return nil
        }
    }

    /// The kinds Google Play sells.
    package var isSoldByGoogle: Bool { self != .nonRenewing }
}
