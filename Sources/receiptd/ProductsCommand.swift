import ArgumentParser
import ReceiptdCore

/// `receiptd products`: the catalogue, what kind each product is.
struct ProductsCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract:
            "List the product catalogue (iap.products): each product's kind, who said it, and what the store says.",
        discussion:
            "The game declares products with `SELECT iap.define_product(store, product_id, kind)`; an App Store "
            + "product nobody declared is listed from the first signed transaction that names its type. Where the "
            + "store's kind contradicts the declared one, the store's is used."
    )

    @OptionGroup var options: OperatorOptions

    @Option(help: "Only this store's products.")
    var store: Store?

    func run() async throws {
        try await perform({ try await $0.products(store: store) }, text: Self.text)
    }

    static func text(_ products: [CatalogueProduct]) -> String {
        guard !products.isEmpty else { return "No products in the catalogue." }
        return TextTable(
            headers: ["STORE", "PRODUCT", "KIND", "SOURCE", "STORE SAYS", "UPDATED"],
            rows: products.map { product in
                [
                    product.store, product.productID, product.kind, product.source,
                    product.storeKind.map { product.isMismatch ? "\($0) (used: contradicts the declared kind)" : $0 },
                    product.updatedAt,
                ]
            }
        ).render()
    }
}
