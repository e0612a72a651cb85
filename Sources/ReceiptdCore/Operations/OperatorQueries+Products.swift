extension OperatorQueries {
    /// The catalogue, of one store or both, by store and product id.
    package func products(store: Store?) async throws -> [CatalogueProduct] {
        try await connection.execute(
            """
            SELECT \(CatalogueProduct.columns) FROM iap.products
            WHERE $1::text IS NULL OR store = $1
            ORDER BY store, product_id
            """,
            [store?.rawValue]
        ).namedRows.map(CatalogueProduct.init(row:))
    }

    /// Products whose kind the store states otherwise than the game declared: the store's word is used.
    static let productKindMismatchQuery = """
        SELECT \(CatalogueProduct.columns) FROM iap.products
        WHERE store_kind IS NOT NULL AND store_kind <> kind
        ORDER BY store, product_id
        """
}
