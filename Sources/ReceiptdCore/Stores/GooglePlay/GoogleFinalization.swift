/// What Google must be told once a purchase is delivered, or it refunds the purchase after three days: by the
/// product's kind in the catalogue, and `GOOGLE_PLAY_FINALIZE` for a product not in it.
package enum GoogleFinalizeAction: String, Sendable, Codable, CaseIterable {
    /// `purchases.products.acknowledge`: the purchase stays owned (non-consumables).
    case acknowledge
    /// `purchases.products.consume`: acknowledges and lets the player buy it again (consumables).
    case consume
    /// `purchases.subscriptions.acknowledge`: a subscription's first period (auto-renewables).
    case acknowledgeSubscription = "acknowledge_subscription"
    /// Nothing: the game acknowledges itself.
    case none

    /// The call a product of `kind` needs: a consumable is consumed, so the player can buy it again; anything
    /// else is acknowledged, so it stays owned and restorable.
    package init(kind: ProductKind) {
        switch kind {
        case .consumable: self = .consume
        case .autoRenewable: self = .acknowledgeSubscription
        default: self = .acknowledge
        }
    }
}

/// The call owed for one delivered Google purchase, written to `iap.google_finalizations` with its ledger row.
package struct GoogleFinalization: Sendable, Equatable {
    /// The token the purchase was looked up with.
    package var purchaseToken: String
    /// The product it was looked up under.
    package var productID: String
    /// Acknowledge or consume: `GOOGLE_PLAY_FINALIZE` until `owed(for:)` resolves it by the product's kind.
    package var action: GoogleFinalizeAction
    /// Time after delivery from which a call still owed shows in `iap.stuck_jobs` (`GOOGLE_PLAY_FINALIZE_OVERDUE`).
    package var overdue: Duration
    /// The calls Google already has for the purchase: acknowledged, consumed (which acknowledges too).
    package var done: Set<GoogleFinalizeAction>
    /// The one ledger row the call is owed with (a subscription's first period; its renewals need none); nil:
    /// every row of the purchase.
    package var transactionID: String?

    /// Creates one.
    package init(
        purchaseToken: String,
        productID: String,
        action: GoogleFinalizeAction,
        overdue: Duration,
        done: Set<GoogleFinalizeAction> = [],
        transactionID: String? = nil
    ) {
        self.transactionID = transactionID
        self.overdue = overdue
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.action = action
        self.done = done
    }

    /// The call still owed for a product of `kind` (`nil`: not in the catalogue, `action` stands), or `nil` when
    /// Google already has it or none is wanted.
    package func owed(for kind: ProductKind?) -> GoogleFinalization? {
        var owed = self
        // A subscription's token is only ever acknowledged as a subscription, whatever the catalogue says.
        if let kind, action != .acknowledgeSubscription { owed.action = GoogleFinalizeAction(kind: kind) }
        guard owed.action != .none, !done.contains(owed.action) else { return nil }
        return owed
    }
}
