/// What the console's player page shows of one user id: their orders, what the game still owes them or must take
/// back, their trust level, the payments no order claimed from their receipts, and the suspicious-receipt flags.
/// Times are ISO-8601, UTC.
package struct PlayerDetail: Sendable, Encodable, Equatable {
    /// One of the user's orders.
    package struct Order: Sendable, Codable, Equatable {
        /// `order_id`.
        package var orderID: String
        /// `pending`, `verified`, `finished` or `closed`.
        package var status: String
        /// `full`, `partial`, … or `nil` while unsettled.
        package var outcome: String?
        /// The product bought.
        package var productID: String
        /// Units ordered.
        package var quantity: Int
        /// Units delivered so far.
        package var deliveredQuantity: Int
        /// When the order was first seen.
        package var createdAt: String
    }

    /// A ledger row (or a provisional grant, `provisional:<order_id>`) the game owes the player or must take back.
    package struct LedgerRow: Sendable, Codable, Equatable {
        /// The ledger id, or `provisional:<order_id>`.
        package var transactionID: String
        /// The order it paid.
        package var orderID: String
        /// The product.
        package var productID: String
        /// Units owed (for a revocation: units to take back).
        package var quantity: Int
        /// When it was delivered (for a revocation: when it was revoked).
        package var at: String?
        /// Why it was revoked; `nil` for a delivery.
        package var reason: String?
    }

    /// A job of the player whose receipt carried a purchase first delivered to another user.
    package struct SuspiciousReceipt: Sendable, Codable, Equatable {
        /// When it was seen.
        package var seenAt: String
        /// The job.
        package var jobID: Int64
        /// The player's order that job verified.
        package var orderID: String
        /// The purchase's original transaction id.
        package var originalTransactionID: String
        /// Who received it first.
        package var ownerUserID: String
        /// The order it was first delivered to.
        package var ownerOrderID: String?
    }

    /// The user id.
    package var userID: String
    /// The newest orders, at most `OperatorQueries.playerOrdersLimit`.
    package var orders: [Order]
    /// True when the player has more orders than listed.
    package var moreOrders: Bool
    /// Delivered, not granted by the game yet, not revoked; provisional grants not granted yet.
    package var owedDeliveries: [LedgerRow]
    /// Revoked (or partly revoked) and not handled by the game yet; refuted or replaced provisional grants.
    package var owedRevocations: [LedgerRow]
    /// The trust level in each store.
    package var trust: [UserTrust]
    /// Payments no order claimed that the player's receipts carried, newest first (assigned ones too).
    package var unclaimed: [UnclaimedPayment]
    /// The player's receipts that carried purchases of someone else, newest first.
    package var suspicious: [SuspiciousReceipt]
    /// What the player paid, per currency: the ledger's prices of their own purchases (family-shared ones are
    /// another member's payment), before refunds; purchases whose store stated no price are left out.
    package var spent: [Spending] = []
    /// The stores' refund requests about the player's purchases, open ones first by deadline, then the newest.
    package var refundRequests: [RefundRequestSummary] = []
    /// The player's subscriptions, newest first, with their periods and history.
    package var subscriptions: [SubscriptionSummary] = []

    /// One currency's total of `spent`.
    package struct Spending: Sendable, Codable, Equatable {
        /// ISO 4217.
        package var currency: String
        /// The total in the currency's units, as PostgreSQL's numeric text (`10.98`).
        package var total: String
        /// How many ledger rows it sums.
        package var purchases: Int
    }
}
