import Foundation
import ReceiptdCore

/// A purchase token the stand-in Google Play understands without registration: `synthetic.` and the base64url
/// JSON of what productsv2 (and `purchases.products.get`) should answer, so tools in other processes can make
/// them too.
///
/// In JSON (what other tools write by hand): `product_id`, `order_id`, `state`, `pending_calls`, `quantity`,
/// `account_id`, `purchase_time_ms`, `acknowledged`, `test_purchase`, `script` (``ScriptStep``s), `nonce`,
/// `line_items` (``LineItem``s), `refundable_quantity`, `purchase_option_id`, `offer_id`, `price`, `currency`,
/// `order_status`; every one may be left out.
package struct SyntheticPurchaseToken: Codable, Sendable, Equatable {
    /// The product the purchase is for; a call naming another product in its path is answered 400.
    /// `nil` accepts any product.
    package var productID: String?
    /// `orderId`; `nil` answers none, as Google does for license testers' purchases.
    package var orderID: String?
    /// `purchaseState`: 0 purchased, 1 cancelled, 2 pending.
    package var state: Int
    /// The first this many `products.get` calls of the token (scripted ones included) answer state 2 (pending),
    /// later ones ``state``; acknowledge and consume are refused until then.
    package var pendingCalls: Int?
    /// `quantity`; absent from the answer when `nil`.
    package var quantity: Int?
    /// `obfuscatedExternalAccountId`; absent when `nil`.
    package var accountID: String?
    /// `purchaseTimeMillis` (answered as a string, as Google does); ``init(productID:orderID:state:pendingCalls:quantity:accountID:purchaseTimeMilliseconds:acknowledged:testPurchase:script:)``
    /// sets it to now, and a hand-written token without it answers when the stand-in first saw it.
    package var purchaseTimeMilliseconds: Int64?
    /// Google already reports it acknowledged (`acknowledgementState` 1) before any acknowledge call.
    package var acknowledged: Bool?
    /// A license tester's purchase: the answer has `purchaseType` 0.
    package var testPurchase: Bool?
    /// One step per `products.get` call of this token: `http` (answered with Google's error body for that status),
    /// `retry_after` (sent verbatim), `reset`, `raw`, `delay_ms`. A step without an answer, and calls past the
    /// script, answer normally.
    package var script: [ScriptStep]?
    /// Random, so equal specifications still make distinct tokens.
    package var nonce: String?
    /// productsv2's line items; `nil` answers one line: ``productID``, ``quantity``, ``refundableQuantity``,
    /// ``purchaseOptionID``, ``offerID`` and ``price``.
    package var lineItems: [LineItem]?
    /// The one line's `refundableQuantity`; absent when `nil`.
    package var refundableQuantity: Int?
    /// The one line's `purchaseOptionId`; absent when `nil`.
    package var purchaseOptionID: String?
    /// The one line's `offerId`; absent when `nil`.
    package var offerID: String?
    /// What `orders.get` answers the order cost, as a decimal (`"0.99"`); with ``currency``.
    package var price: String?
    /// The ISO 4217 code of ``price`` and the line items' prices.
    package var currency: String?
    /// `orders.get` of this purchase's order answers this HTTP status with Google's error body (403: the service
    /// account may not see financial data).
    package var orderStatus: Int?

    /// One productsv2 line item.
    package struct LineItem: Codable, Sendable, Equatable {
        /// `productId`.
        package var productID: String
        /// `productOfferDetails.quantity`.
        package var quantity: Int?
        /// `productOfferDetails.refundableQuantity`.
        package var refundableQuantity: Int?
        /// `productOfferDetails.purchaseOptionId`.
        package var purchaseOptionID: String?
        /// `productOfferDetails.offerId`.
        package var offerID: String?
        /// This line's total in `orders.get`, as a decimal.
        package var price: String?

        /// Creates a line item.
        package init(
            productID: String,
            quantity: Int? = nil,
            refundableQuantity: Int? = nil,
            purchaseOptionID: String? = nil,
            offerID: String? = nil,
            price: String? = nil
        ) {
            self.productID = productID
            self.quantity = quantity
            self.refundableQuantity = refundableQuantity
            self.purchaseOptionID = purchaseOptionID
            self.offerID = offerID
            self.price = price
        }

        private enum CodingKeys: String, CodingKey {
            case productID = "product_id"
            case quantity
            case refundableQuantity = "refundable_quantity"
            case purchaseOptionID = "purchase_option_id"
            case offerID = "offer_id"
            case price
        }
    }

    /// Creates a token specification; by default a purchased, unacknowledged purchase made now.
    package init(
        productID: String? = nil,
        orderID: String? = nil,
        state: Int = 0,
        pendingCalls: Int? = nil,
        quantity: Int? = nil,
        accountID: String? = nil,
        purchaseTimeMilliseconds: Int64? = nil,
        acknowledged: Bool? = nil,
        testPurchase: Bool? = nil,
        script: [ScriptStep]? = nil,
        lineItems: [LineItem]? = nil,
        refundableQuantity: Int? = nil,
        purchaseOptionID: String? = nil,
        offerID: String? = nil,
        price: String? = nil,
        currency: String? = nil,
        orderStatus: Int? = nil
    ) {
        self.productID = productID
        self.orderID = orderID
        self.state = state
        self.pendingCalls = pendingCalls
        self.quantity = quantity
        self.accountID = accountID
        self.purchaseTimeMilliseconds = purchaseTimeMilliseconds ?? Int64(Date().timeIntervalSince1970 * 1000)
        self.acknowledged = acknowledged
        self.testPurchase = testPurchase
        self.script = script
        self.lineItems = lineItems
        self.refundableQuantity = refundableQuantity
        self.purchaseOptionID = purchaseOptionID
        self.offerID = offerID
        self.price = price
        self.currency = currency
        self.orderStatus = orderStatus
        nonce = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Reads a token made by ``encoded()`` (or by hand the same way); `nil` for any other token.
    package init?(token: String) {
        guard token.hasPrefix(Self.prefix), let data = Base64URL.decode(token.dropFirst(Self.prefix.count)),
            let decoded = try? JSONDecoder().decode(SyntheticPurchaseToken.self, from: data)
        else { return nil }
        self = decoded
    }

    /// Reads the JSON leniently: every field may be absent, `state` then being 0.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decodeIfPresent(String.self, forKey: .productID)
        orderID = try container.decodeIfPresent(String.self, forKey: .orderID)
        state = try container.decodeIfPresent(Int.self, forKey: .state) ?? 0
        pendingCalls = try container.decodeIfPresent(Int.self, forKey: .pendingCalls)
        quantity = try container.decodeIfPresent(Int.self, forKey: .quantity)
        accountID = try container.decodeIfPresent(String.self, forKey: .accountID)
        purchaseTimeMilliseconds = try container.decodeIfPresent(Int64.self, forKey: .purchaseTimeMilliseconds)
        acknowledged = try container.decodeIfPresent(Bool.self, forKey: .acknowledged)
        testPurchase = try container.decodeIfPresent(Bool.self, forKey: .testPurchase)
        script = try container.decodeIfPresent([ScriptStep].self, forKey: .script)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        lineItems = try container.decodeIfPresent([LineItem].self, forKey: .lineItems)
        refundableQuantity = try container.decodeIfPresent(Int.self, forKey: .refundableQuantity)
        purchaseOptionID = try container.decodeIfPresent(String.self, forKey: .purchaseOptionID)
        offerID = try container.decodeIfPresent(String.self, forKey: .offerID)
        price = try container.decodeIfPresent(String.self, forKey: .price)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        orderStatus = try container.decodeIfPresent(Int.self, forKey: .orderStatus)
    }

    /// `synthetic.` and the unpadded base64url of the JSON with sorted keys: only `[A-Za-z0-9._-]`, so it goes
    /// into a URL path as it is.
    package func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and booleans only: encoding cannot fail.
        return Self.prefix + Base64URL.encode((try? encoder.encode(self)) ?? Data())
    }

    /// What every synthetic token starts with.
    static let prefix = "synthetic."

    private enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case orderID = "order_id"
        case state
        case pendingCalls = "pending_calls"
        case quantity
        case accountID = "account_id"
        case purchaseTimeMilliseconds = "purchase_time_ms"
        case acknowledged
        case testPurchase = "test_purchase"
        case script
        case nonce
        case lineItems = "line_items"
        case refundableQuantity = "refundable_quantity"
        case purchaseOptionID = "purchase_option_id"
        case offerID = "offer_id"
        case price, currency
        case orderStatus = "order_status"
    }
}
