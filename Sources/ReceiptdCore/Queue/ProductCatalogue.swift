/// The part of `iap.products` a settle needs: the kinds of the batch's products, as the settle's read found them.
struct ProductCatalogue {
    /// One product of one store.
    struct Key: Hashable {
        /// Its store.
        var store: Store
        /// Its product id.
        var productID: String
    }

    /// A catalogue row: the kind in use and what the store last said.
    struct Entry: Equatable {
        /// `kind`: the game's declaration, or the store's word for a product nobody declared.
        var kind: ProductKind
        /// `store_kind`: what the store last said, where it says.
        var storeKind: ProductKind?
        /// `periods`: false for an auto-renewable the game only checks as an entitlement.
        var periods = true
    }

    /// The rows read, by product.
    var entries: [Key: Entry] = [:]

    /// Reads rows of `store`, `product_id`, `kind`, `store_kind` and `periods`; a row with a value this binary does not know is
    /// left out (the product is then treated as not in the catalogue).
    init(_ result: QueryResult) throws {
        for row in result.namedRows {
            guard let store = Store(rawValue: try row.string("store")),
                let kind = ProductKind(rawValue: try row.string("kind"))
            else { continue }
            entries[Key(store: store, productID: try row.string("product_id"))] = Entry(
                kind: kind,
                storeKind: row["store_kind"].flatMap(ProductKind.init(rawValue:)),
                periods: row["periods"] != "f"
            )
        }
    }

    /// The kind a delivery of `purchase` is settled as: the store's own word in the purchase, else the store's
    /// last word in the catalogue, else the game's declaration; `nil` for a product nobody described.
    func kind(of purchase: VerifiedPurchase) -> ProductKind? {
        if let stated = purchase.details.storeKind { return stated }
        guard let entry = entries[Key(store: purchase.store, productID: purchase.productID)] else { return nil }
        return entry.storeKind ?? entry.kind
    }

    /// Whether a delivered period of `purchase` is recorded granted: its product is declared `periods => false`.
    func recordsGranted(_ purchase: VerifiedPurchase) -> Bool {
        purchase.subscription != nil
            && entries[Key(store: purchase.store, productID: purchase.productID)]?.periods == false
    }

    /// The products whose kind `purchases` state and the catalogue does not have yet (not there, or with another
    /// `store_kind`): each once, in key order, so that concurrent settles lock catalogue rows in one order.
    func learned(from purchases: [VerifiedPurchase]) -> [(key: Key, kind: ProductKind)] {
        var learned: [Key: ProductKind] = [:]
        for purchase in purchases {
            guard let stated = purchase.details.storeKind else { continue }
            let key = Key(store: purchase.store, productID: purchase.productID)
            if entries[key]?.storeKind != stated { learned[key] = stated }
        }
        return learned.map { (key: $0.key, kind: $0.value) }.sorted {
            ($0.key.store.rawValue, $0.key.productID) < ($1.key.store.rawValue, $1.key.productID)
        }
    }
}
