/// One page of `purchases.voidedpurchases.list`: the voided purchases, and the token of the next page.
struct GoogleVoidedPurchasesPage: Decodable, Sendable, Equatable {
    /// One voided purchase.
    struct Entry: Decodable, Sendable, Equatable {
        /// The token the purchase was made with.
        var purchaseToken: String
        /// Its `orderId`; a test purchase has none.
        var orderId: String?
        /// `voidedTimeMillis`: when it was voided.
        var voidedTimeMilliseconds: Int64?
        /// `voidedReason`, Google's code for why.
        var voidedReason: Int64?
        /// `voidedQuantity`: the units a quantity-based partial refund voided (listed only with
        /// `includeQuantityBasedPartialRefund=true`); `nil` when absent or not a positive integer.
        var voidedQuantity: Int?

        private enum CodingKeys: String, CodingKey {
            case purchaseToken, orderId, voidedTimeMillis, voidedReason, voidedQuantity
        }

        /// Reads one entry; throws only without a `purchaseToken`.
        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            purchaseToken = try fields.decode(String.self, forKey: .purchaseToken)
            orderId = try? fields.decodeIfPresent(String.self, forKey: .orderId)
            voidedTimeMilliseconds = fields.flexibleInteger(forKey: .voidedTimeMillis)
            voidedReason = fields.flexibleInteger(forKey: .voidedReason)
            voidedQuantity = fields.flexibleInteger(forKey: .voidedQuantity).flatMap {
                (1...Int64(Int32.max)).contains($0) ? Int($0) : nil
            }
        }

        /// Its ledger id.
        var ledgerID: String { GoogleLedgerID.of(orderID: orderId, token: purchaseToken) }
    }

    /// The voided purchases on this page; an entry without a token is skipped.
    var entries: [Entry]
    /// The next page's token, `nil` on the last page.
    var nextPageToken: String?

    private enum CodingKeys: String, CodingKey {
        case voidedPurchases, tokenPagination
    }

    private enum PaginationKeys: String, CodingKey {
        case nextPageToken
    }

    /// A lenient reader: a missing list is an empty page.
    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        entries = ((try? fields.decodeIfPresent([Skippable<Entry>].self, forKey: .voidedPurchases)) ?? [])
            .compactMap(\.value)
        let pagination = try? fields.nestedContainer(keyedBy: PaginationKeys.self, forKey: .tokenPagination)
        nextPageToken = (try? pagination?.decodeIfPresent(String.self, forKey: .nextPageToken)).flatMap {
            $0.isEmpty ? nil : $0
        }
    }

    /// An element read if it can be, else skipped, so one odd entry leaves the others readable.
    private struct Skippable<Value: Decodable>: Decodable {
        var value: Value?
        init(from decoder: any Decoder) throws { value = try? Value(from: decoder) }
    }
}
