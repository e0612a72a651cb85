/// One thing the console's search box found: a player, an order, or a payment no order claimed.
package struct SearchHit: Sendable, Codable, Equatable {
    /// What was found; its page is the player's, the order's, or the unclaimed payment's row.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// A user id of some order: `id` is the user id.
        case player
        /// An order: `id` is the order id.
        case order
        /// An unclaimed payment not yet assigned: `id` is its transaction id.
        case unclaimedPayment = "unclaimed_payment"
    }

    /// What was found.
    package var kind: Kind
    /// The user id, order id or transaction id it names.
    package var id: String
    /// What the text matched: `user id`, `order id`, `transaction id`, `original transaction id`,
    /// `purchase token`.
    package var matched: String
    /// The user of the order or payment (the player itself for `player`).
    package var userID: String?
    /// The product of the order or payment.
    package var productID: String?
    /// The order's outcome (`nil` while unsettled, and for players and payments).
    package var outcome: String?

    /// A hit with the given values.
    package init(
        kind: Kind,
        id: String,
        matched: String,
        userID: String? = nil,
        productID: String? = nil,
        outcome: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.matched = matched
        self.userID = userID
        self.productID = productID
        self.outcome = outcome
    }
}
