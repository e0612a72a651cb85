/// What a store says about a purchase beyond what decides delivery: its kind, who owns it, what it cost and under
/// which offer. Written to the ledger with the delivery (`iap.deliveries`); each `nil` where the store does not say.
package struct PurchaseDetails: Sendable, Equatable {
    /// The product's kind as the store states it (Apple's `type`).
    package var storeKind: ProductKind?
    /// `purchased`, `family_shared`, or any other value the store sends, lowercased (Apple's `inAppOwnershipType`).
    package var ownership: String?
    /// The transaction's total for its quantity, after any offer, in thousandths of the currency's unit (Apple's
    /// `price`).
    package var priceMilliunits: Int64?
    /// The price's ISO 4217 currency code.
    package var currency: String?
    /// `introductory`, `promotional`, `offer_code`, `win_back`, or the store's number for an offer type it has not
    /// documented.
    package var offerType: String?
    /// The offer's identifier (Apple's `offerIdentifier`, Google's `offerId`).
    package var offerID: String?
    /// Google's purchase option of a one-time product.
    package var purchaseOptionID: String?

    /// Creates one; nothing is known unless given.
    package init(
        storeKind: ProductKind? = nil,
        ownership: String? = nil,
        priceMilliunits: Int64? = nil,
        currency: String? = nil,
        offerType: String? = nil,
        offerID: String? = nil,
        purchaseOptionID: String? = nil
    ) {
        self.storeKind = storeKind
        self.ownership = ownership
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.offerType = offerType
        self.offerID = offerID
        self.purchaseOptionID = purchaseOptionID
    }

    /// True for a purchase a family member made and shared (Family Sharing): the entitlement of whoever presents
    /// it, not a payment of theirs.
    package var isFamilyShared: Bool { ownership == "family_shared" }

    /// The name Apple's `offerType` number stands for.
    package static func appleOfferType(_ number: Int64) -> String {
        switch number {
        case 1: "introductory"
        case 2: "promotional"
        case 3: "offer_code"
        case 4: "win_back"
        default: String(number)
        }
    }

    /// A currency code as the ledger keeps it: three ASCII letters, upper case; `nil` for anything else.
    package static func currencyCode(_ value: String?) -> String? {
        guard let value, value.utf8.count == 3, value.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A })
        else { return nil }
        return value.uppercased()
    }
}
