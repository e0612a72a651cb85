/// The fields receiptd reads of a `purchases.products.get` answer (`androidpublisher#productPurchase`). Only
/// `purchaseState` is required; a field that cannot be read is `nil` (an unreadable quantity or date then pays
/// nothing, as the outcome rules decide), so one odd field never stops a purchase from being judged.
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

    private enum CodingKeys: String, CodingKey {
        case purchaseState, purchaseType, acknowledgementState, consumptionState, orderId, quantity
        case purchaseTimeMillis, obfuscatedExternalAccountId
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
        accountID: String? = nil
    ) {
        self.purchaseState = purchaseState
        self.purchaseType = purchaseType
        self.acknowledgementState = acknowledgementState
        self.consumptionState = consumptionState
        self.orderID = orderID
        self.quantity = quantity
        self.purchaseTimeMilliseconds = purchaseTimeMilliseconds
        self.accountID = accountID
    }

    /// Reads an answer; throws only when `purchaseState` is missing or not an integer.
    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        guard let state = fields.flexibleInteger(forKey: .purchaseState) else {
            throw DecodingError.keyNotFound(
                CodingKeys.purchaseState,
                .init(codingPath: decoder.codingPath, debugDescription: "no integer purchaseState")
            )
        }
        purchaseState = PurchaseState(code: state)
        purchaseType = fields.flexibleInteger(forKey: .purchaseType).map(PurchaseType.init(code:))
        acknowledgementState = fields.flexibleInteger(forKey: .acknowledgementState).map(
            AcknowledgementState.init(code:)
        )
        consumptionState = fields.flexibleInteger(forKey: .consumptionState).map(ConsumptionState.init(code:))
        orderID = try? fields.decodeIfPresent(String.self, forKey: .orderId)
        quantity =
            fields.contains(.quantity)
            ? fields.flexibleInteger(forKey: .quantity).flatMap { (1...Int64(Int32.max)).contains($0) ? Int($0) : nil }
            : 1
        purchaseTimeMilliseconds = fields.flexibleInteger(forKey: .purchaseTimeMillis).flatMap {
            (0...253_402_300_799_999).contains($0) ? $0 : nil
        }
        accountID = (try? fields.decodeIfPresent(String.self, forKey: .obfuscatedExternalAccountId)).flatMap {
            $0.isEmpty ? nil : $0
        }
    }

    /// Its ledger id, for the purchase `token` names.
    func ledgerID(token: String) -> String {
        GoogleLedgerID.of(orderID: orderID, token: token)
    }
}
