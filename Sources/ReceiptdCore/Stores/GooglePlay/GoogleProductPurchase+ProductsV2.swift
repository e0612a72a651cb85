import Foundation

extension GoogleProductPurchase {
    /// One `productLineItem` of a productsv2 answer: a product, the purchase option and offer it was bought with,
    /// and its units.
    struct LineItem: Sendable, Equatable {
        /// `productId`; `nil` when Google left it out (the product asked about then stands).
        var productID: String?
        /// `productOfferDetails.quantity`: 1 when absent; `nil` when present but not a positive integer.
        var quantity: Int?
        /// `productOfferDetails.refundableQuantity`: the units not refunded yet; `nil` when absent or unreadable.
        var refundableQuantity: Int?
        /// `productOfferDetails.consumptionState`.
        var consumptionState: ConsumptionState?
        /// `productOfferDetails.purchaseOptionId`.
        var purchaseOptionID: String?
        /// `productOfferDetails.offerId`: only for a purchase made with an offer.
        var offerID: String?

        /// Creates one (for tests).
        init(
            productID: String?,
            quantity: Int? = 1,
            refundableQuantity: Int? = nil,
            consumptionState: ConsumptionState? = nil,
            purchaseOptionID: String? = nil,
            offerID: String? = nil
        ) {
            self.productID = productID
            self.quantity = quantity
            self.refundableQuantity = refundableQuantity
            self.consumptionState = consumptionState
            self.purchaseOptionID = purchaseOptionID
            self.offerID = offerID
        }

        /// The units Google reports refunded: `quantity` less `refundableQuantity`, 0 when either is unknown.
        var refundedQuantity: Int {
            guard let quantity, let refundableQuantity else { return 0 }
            return min(quantity, max(0, quantity - refundableQuantity))
        }
    }

    private struct StateContext: Decodable {
        var purchaseState: String?
    }

    private struct LineItemFields: Decodable {
        var productId: String?
        var productOfferDetails: OfferDetails?
    }

    private struct OfferDetails: Decodable {
        enum CodingKeys: String, CodingKey {
            case quantity, refundableQuantity, consumptionState, purchaseOptionId, offerId
        }
        var quantity: Int?
        var refundableQuantity: Int?
        var consumptionState: String?
        var purchaseOptionId: String?
        var offerId: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            quantity = GoogleProductPurchase.quantity(fields, .quantity)
            refundableQuantity = fields.flexibleInteger(forKey: .refundableQuantity).flatMap {
                (0...Int64(Int32.max)).contains($0) ? Int($0) : nil
            }
            consumptionState = try? fields.decodeIfPresent(String.self, forKey: .consumptionState)
            purchaseOptionId = Self.text(fields, .purchaseOptionId)
            offerId = Self.text(fields, .offerId)
        }

        private static func text(_ fields: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> String? {
            (try? fields.decodeIfPresent(String.self, forKey: key)).flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Reads a productsv2 answer: `purchaseStateContext.purchaseState` (`PURCHASED`, `CANCELLED`, `PENDING`) is
    /// required; a `testPurchaseContext` makes it a test purchase; `purchaseCompletionTime` (absent while pending)
    /// is the purchase time.
    init(productsV2 fields: KeyedDecodingContainer<CodingKeys>, codingPath: [any CodingKey]) throws {
        let state = try? fields.decodeIfPresent(StateContext.self, forKey: .purchaseStateContext)
        guard let stateName = state?.purchaseState else {
            throw DecodingError.keyNotFound(
                CodingKeys.purchaseStateContext,
                .init(codingPath: codingPath, debugDescription: "no purchaseStateContext.purchaseState")
            )
        }
        let items = (try? fields.decodeIfPresent([LineItemFields].self, forKey: .productLineItem)) ?? []
        let lines = items.map { item in
            LineItem(
                productID: item.productId.flatMap { $0.isEmpty ? nil : $0 },
                quantity: item.productOfferDetails.map(\.quantity) ?? 1,
                refundableQuantity: item.productOfferDetails?.refundableQuantity,
                consumptionState: item.productOfferDetails?.consumptionState.map(ConsumptionState.init(name:)),
                purchaseOptionID: item.productOfferDetails?.purchaseOptionId,
                offerID: item.productOfferDetails?.offerId
            )
        }
        let acknowledgement = try? fields.decodeIfPresent(String.self, forKey: .acknowledgementState)
        self.init(
            purchaseState: PurchaseState(name: stateName),
            purchaseType: fields.contains(.testPurchaseContext) ? .test : nil,
            acknowledgementState: acknowledgement.map(AcknowledgementState.init(name:)),
            consumptionState: lines.first?.consumptionState,
            orderID: (try? fields.decodeIfPresent(String.self, forKey: .orderId)).flatMap { $0.isEmpty ? nil : $0 },
            quantity: lines.first.map(\.quantity) ?? 1,
            purchaseTimeMilliseconds: (try? fields.decodeIfPresent(String.self, forKey: .purchaseCompletionTime))
                .flatMap(RFC3339.milliseconds).flatMap(Self.ledgerTime),
            accountID: Self.accountID(fields),
            lineItems: lines
        )
    }
}

extension GoogleProductPurchase.PurchaseState {
    /// The state productsv2 names; any other name (`PURCHASE_STATE_UNSPECIFIED`) pays nothing.
    init(name: String) {
        switch name {
        case "PURCHASED": self = .purchased
        case "CANCELLED": self = .cancelled
        case "PENDING": self = .pending
        default: self = .unknown(-1)
        }
    }
}

extension GoogleProductPurchase.AcknowledgementState {
    /// productsv2's `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`; anything else counts as not acknowledged.
    init(name: String) { self = name == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" ? .acknowledged : .pending }
}

extension GoogleProductPurchase.ConsumptionState {
    /// productsv2's `CONSUMPTION_STATE_CONSUMED`; anything else counts as not consumed.
    init(name: String) { self = name == "CONSUMPTION_STATE_CONSUMED" ? .consumed : .pending }
}
