import Foundation

/// A purchase token the stand-in Google Play understands: base64url JSON saying what `purchases.products.get`
/// answers, so tools in other processes need no registration.
public struct SyntheticPurchaseToken: Codable, Sendable, Equatable {
    /// The product the purchase is for; a lookup under another product is answered 400.
    public var productID: String?
    /// `orderId`; `nil` answers none, as for Google's test purchases.
    public var orderID: String?
    /// `purchaseState`: 0 purchased, 1 cancelled, 2 pending.
    public var state: Int?
    /// The first this many lookups answer state 2 (pending), later ones `state`.
    public var pendingCalls: Int?
    /// `quantity`; absent from the answer when `nil`.
    public var quantity: Int?
    /// `obfuscatedExternalAccountId`.
    public var accountID: String?
    /// `purchaseTimeMillis`; `nil` means when the token was made.
    public var purchaseTimeMilliseconds: Int64?
    /// Google already reports it acknowledged.
    public var acknowledged: Bool?
    /// A license tester's purchase (`purchaseType` 0).
    public var testPurchase: Bool?
    /// Per lookup of this token: `http` (with Google's error body), `retry_after`, `reset`, `delay_ms`.
    public var script: [ScriptStep]?
    /// Makes equal specifications distinct tokens.
    public var nonce: String?

    /// Creates a token specification; by default a purchased, unacknowledged purchase made now.
    public init(productID: String? = nil, orderID: String? = nil, state: Int? = nil, pendingCalls: Int? = nil, quantity: Int? = nil,
                accountID: String? = nil, purchaseTimeMilliseconds: Int64? = nil, acknowledged: Bool? = nil, testPurchase: Bool? = nil,
                script: [ScriptStep]? = nil) {
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
        nonce = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// `synthetic.` and base64url of the JSON, sorted keys: only `[A-Za-z0-9._-]`.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return "synthetic." + Base64URL.encode(data)
    }

    /// Reads a token made by ``encoded()``; `nil` for any other.
    public init?(token: String) {
        guard token.hasPrefix("synthetic."), let data = Base64URL.decode(token.dropFirst("synthetic.".count)),
              let decoded = try? JSONDecoder().decode(SyntheticPurchaseToken.self, from: data) else { return nil }
        self = decoded
    }

    private enum CodingKeys: String, CodingKey {
        case productID = "product_id", orderID = "order_id", state, pendingCalls = "pending_calls", quantity, accountID = "account_id"
        case purchaseTimeMilliseconds = "purchase_time_ms", acknowledged, testPurchase = "test_purchase", script, nonce
    }
}
