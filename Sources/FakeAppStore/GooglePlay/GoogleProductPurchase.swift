/// The body of a `purchases.products.get` answer (`androidpublisher#productPurchase`); `nil` fields are left out.
struct GoogleProductPurchase: Encodable {
    var kind = "androidpublisher#productPurchase"
    /// UNIX milliseconds as a string, as Google sends it.
    var purchaseTimeMillis: String
    var purchaseState: Int
    var consumptionState: Int
    var developerPayload = ""
    var orderId: String?
    var purchaseType: Int?
    var acknowledgementState: Int
    var productId: String
    var quantity: Int?
    var obfuscatedExternalAccountId: String?
    var regionCode = "US"
}
