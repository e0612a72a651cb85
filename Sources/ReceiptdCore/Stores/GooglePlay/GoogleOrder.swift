/// What receiptd reads of an `orders.get` answer: what the buyer paid, for the whole order and for each line item
/// (`total`, a `google.type.Money`: tax included, discounts taken off).
struct GoogleOrder: Decodable, Sendable, Equatable {
    /// An amount in a currency.
    struct Money: Decodable, Sendable, Equatable {
        /// In thousandths of the currency's unit, as the ledger's price (`units` and `nanos` / 10⁶, rounded).
        var milliunits: Int64
        /// `currencyCode` (ISO 4217).
        var currency: String

        private enum CodingKeys: String, CodingKey { case currencyCode, units, nanos }

        init(milliunits: Int64, currency: String) {
            self.milliunits = milliunits
            self.currency = currency
        }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            let currency = try fields.decode(String.self, forKey: .currencyCode)
            // `units` is an int64 written as a string; both may be absent for zero.
            let units = fields.flexibleInteger(forKey: .units) ?? 0
            let nanos = fields.flexibleInteger(forKey: .nanos) ?? 0
            guard !currency.isEmpty, abs(units) < 1_000_000_000_000, abs(nanos) < 1_000_000_000 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .units,
                    in: fields,
                    debugDescription: "not an amount the ledger holds"
                )
            }
            self.init(
                milliunits: units * 1000 + (nanos + (nanos >= 0 ? 500_000 : -500_000)) / 1_000_000,
                currency: currency
            )
        }
    }

    /// One `lineItems` entry.
    struct LineItem: Decodable, Sendable, Equatable {
        /// `productId`.
        var productId: String?
        /// `total`.
        var total: Money?
    }

    /// `lineItems`, in Google's order.
    var lineItems: [LineItem]?
    /// `total`.
    var total: Money?

    /// The amount the `index`-th purchase of `purchases` (the line items of this order's purchase, in order) cost:
    /// its line item's total when the order lists that product there, or the order's total when the purchase is
    /// the order's only one. `nil` when the order does not say.
    func amount(ofLine index: Int, productID: String, lineCount: Int) -> Money? {
        if let lines = lineItems, lines.indices.contains(index), lines[index].productId == productID,
            let total = lines[index].total
        {
            return total
        }
        return lineCount == 1 ? total : nil
    }
}
