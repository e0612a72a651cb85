/// The fields receiptd reads of a `purchases.productsv2.getproductpurchasev2` answer (`ProductPurchaseV2`), or of
/// a `purchases.products.get` answer (`androidpublisher#productPurchase`), which notifications stored before
/// receiptd asked productsv2 still hold. Only the purchase state is required; a field that cannot be read is
/// `nil` (an unreadable quantity or date then pays nothing, as the outcome rules decide), so one odd field never
/// stops a purchase from being judged. A productsv2 answer's first line item also fills `quantity` and
/// `consumptionState`, so readers that know one line need nothing else.
struct GoogleProductPurchase: Decodable, Sendable, Equatable {
    /// Purchased, cancelled or pending.
    var purchaseState: PurchaseState
    /// Test, promo or rewarded; `nil` for an ordinary purchase.
    var purchaseType: PurchaseType?
    /// Whether the purchase was acknowledged.
    var acknowledgementState: AcknowledgementState?
    /// Whether the purchase was consumed.
    var consumptionState: ConsumptionState?
    /// `orderId`; a test purchase has none.
    var orderID: String?
    /// `quantity`: 1 when absent; `nil` when present but not a positive integer the ledger can hold.
    var quantity: Int?
    /// `purchaseTimeMillis`; `nil` when absent, unreadable or outside years 1970–9999.
    var purchaseTimeMilliseconds: Int64?
    /// `obfuscatedExternalAccountId`, when the app set one (empty counts as none).
    var accountID: String?
    /// productsv2's `productLineItem`, in Google's order; empty for a `products.get` answer, whose one line is the
    /// product asked about.
    var lineItems: [LineItem] = []

    enum CodingKeys: String, CodingKey {
        case purchaseState, purchaseType, acknowledgementState, consumptionState, orderId, quantity
        case purchaseTimeMillis, obfuscatedExternalAccountId
        case purchaseStateContext, testPurchaseContext, purchaseCompletionTime, productLineItem
    }

    /// Creates a purchase (for tests).
    init(
        purchaseState: PurchaseState,
        purchaseType: PurchaseType? = nil,
        acknowledgementState: AcknowledgementState? = nil,
        consumptionState: ConsumptionState? = nil,
        orderID: String? = nil,
        quantity: Int? = 1,
        purchaseTimeMilliseconds: Int64? = nil,
        accountID: String? = nil,
        lineItems: [LineItem] = []
    ) {
        self.purchaseState = purchaseState
        self.purchaseType = purchaseType
        self.acknowledgementState = acknowledgementState
        self.consumptionState = consumptionState
        self.orderID = orderID
        self.quantity = quantity
        self.purchaseTimeMilliseconds = purchaseTimeMilliseconds
        self.accountID = accountID
        self.lineItems = lineItems
    }

    /// Reads an answer of either version; throws only when the purchase state is missing or unreadable.
    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        if fields.contains(.purchaseStateContext) || fields.contains(.productLineItem) {
            try self.init(productsV2: fields, codingPath: decoder.codingPath)
            return
        }
        guard let state = fields.flexibleInteger(forKey: .purchaseState) else {
            throw DecodingError.keyNotFound(
                CodingKeys.purchaseState,
                .init(codingPath: decoder.codingPath, debugDescription: "no integer purchaseState")
            )
        }
        self.init(
            purchaseState: PurchaseState(code: state),
            purchaseType: fields.flexibleInteger(forKey: .purchaseType).map(PurchaseType.init(code:)),
            acknowledgementState: fields.flexibleInteger(forKey: .acknowledgementState).map(
                AcknowledgementState.init(code:)
            ),
            consumptionState: fields.flexibleInteger(forKey: .consumptionState).map(ConsumptionState.init(code:)),
            orderID: try? fields.decodeIfPresent(String.self, forKey: .orderId),
            quantity: Self.quantity(fields, .quantity),
            purchaseTimeMilliseconds: fields.flexibleInteger(forKey: .purchaseTimeMillis).flatMap(Self.ledgerTime),
            accountID: Self.accountID(fields)
        )
    }

    /// `key`'s quantity: 1 when absent, `nil` when not a positive integer the ledger can hold.
    static func quantity<Key: CodingKey>(_ fields: KeyedDecodingContainer<Key>, _ key: Key) -> Int? {
        fields.contains(key)
            ? fields.flexibleInteger(forKey: key).flatMap { (1...Int64(Int32.max)).contains($0) ? Int($0) : nil }
            : 1
    }

    /// `milliseconds` when within years 1970–9999, which the ledger holds.
    static func ledgerTime(_ milliseconds: Int64) -> Int64? {
        (0...253_402_300_799_999).contains(milliseconds) ? milliseconds : nil
    }

    /// `obfuscatedExternalAccountId`; empty counts as none.
    static func accountID(_ fields: KeyedDecodingContainer<CodingKeys>) -> String? {
        (try? fields.decodeIfPresent(String.self, forKey: .obfuscatedExternalAccountId)).flatMap {
            $0.isEmpty ? nil : $0
        }
    }

    /// Its ledger id, for the purchase `token` names.
    func ledgerID(token: String) -> String {
        GoogleLedgerID.of(orderID: orderID, token: token)
    }
}
