/// One row of `iap.products`, the catalogue.
package struct CatalogueProduct: Sendable, Codable, Equatable {
    /// `apple` or `google`.
    package var store: String
    /// The store's product id.
    package var productID: String
    /// `consumable`, `non_consumable`, `auto_renewable` or `non_renewing`.
    package var kind: String
    /// `game` (declared with `iap.define_product`) or `store` (first named by a store).
    package var source: String
    /// What the store last said the kind is, where it says.
    package var storeKind: String?
    /// When the row last changed (ISO-8601, UTC).
    package var updatedAt: String

    /// True when the store's word contradicts the game's declaration (the store's is used).
    package var isMismatch: Bool { storeKind.map { $0 != kind } ?? false }

    /// The select list `init(row:)` reads.
    static let columns = """
        store, product_id, kind, source, store_kind,
        to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS updated_at
        """

    init(row: QueryResult.Row) throws {
        store = try row.string("store")
        productID = try row.string("product_id")
        kind = try row.string("kind")
        source = try row.string("source")
        storeKind = row["store_kind"]
        updatedAt = try row.string("updated_at")
    }
}
