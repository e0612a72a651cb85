/// The body of an `orders.get` answer for a synthetic token's order: its line items and total.
struct GoogleOrderBody: Encodable {
    /// A `google.type.Money`.
    struct Money: Encodable {
        var currencyCode: String
        var units: String
        var nanos: Int

        /// `decimal` (`"0.99"`) in `currency`; `nil` when it is not a plain decimal.
        init?(_ decimal: String, currency: String) {
            let parts = decimal.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let units = Int64(parts[0]) else { return nil }
            let fraction = parts.count > 1 ? String(parts[1]) : ""
            guard fraction.count <= 9, fraction.allSatisfy(\.isNumber) else { return nil }
            currencyCode = currency
            self.units = String(units)
            nanos = Int(fraction.padding(toLength: 9, withPad: "0", startingAt: 0)) ?? 0
        }
    }

    struct LineItem: Encodable {
        var productId: String
        var total: Money?
    }

    var orderId: String
    var purchaseToken: String?
    var state = "PROCESSED"
    var lineItems: [LineItem]
    var total: Money?
}
