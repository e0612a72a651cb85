/// What Google must be told once a purchase is delivered, or it refunds the purchase after three days:
/// `GOOGLE_PLAY_FINALIZE`.
package enum GoogleFinalizeAction: String, Sendable, Codable, CaseIterable {
    /// `purchases.products.acknowledge`: the purchase stays owned (non-consumables).
    case acknowledge
    /// `purchases.products.consume`: acknowledges and lets the player buy it again (consumables).
    case consume
    /// Nothing: the game acknowledges itself.
    case none
}

/// The call owed for one delivered Google purchase, written to `iap.google_finalizations` with its ledger row.
package struct GoogleFinalization: Sendable, Equatable {
    /// The token the purchase was looked up with.
    package var purchaseToken: String
    /// The product it was looked up under.
    package var productID: String
    /// Acknowledge or consume.
    package var action: GoogleFinalizeAction
    /// Time after delivery from which a call still owed shows in `iap.stuck_jobs` (`GOOGLE_PLAY_FINALIZE_OVERDUE`).
    package var overdue: Duration

    /// Creates one.
    package init(purchaseToken: String, productID: String, action: GoogleFinalizeAction, overdue: Duration) {
        self.overdue = overdue
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.action = action
    }
}
