/// The body of a `purchases.voidedpurchases.list` answer; `nil` fields are left out, so an empty page is `{}`
/// as Google sends it.
struct GoogleVoidedPurchasePage: Encodable {
    /// One voided purchase (`androidpublisher#voidedPurchase`).
    struct Entry: Encodable {
        var kind = "androidpublisher#voidedPurchase"
        var purchaseToken: String
        /// UNIX milliseconds as strings, as Google sends them.
        var purchaseTimeMillis: String
        var voidedTimeMillis: String
        var orderId: String?
        var voidedSource = 0
        var voidedReason: Int
        /// Units a quantity-based partial refund voided; left out for a refund of the whole purchase.
        var voidedQuantity: Int? = nil
    }

    /// `{"nextPageToken":…}`, present only when more entries follow.
    struct Pagination: Encodable {
        var nextPageToken: String
    }

    var tokenPagination: Pagination?
    var voidedPurchases: [Entry]?
}
