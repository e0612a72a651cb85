/// What one verified receipt delivers, and where every touched order ends up.
package struct DeliveryPlan: Sendable, Equatable {
    /// One ledger row to write.
    package struct Delivery: Sendable, Equatable {
        /// The store transaction being delivered.
        package var transactionID: String
        /// The purchase it goes back to, whose first owner the ledger remembers.
        package var originalTransactionID: String
        /// The order it pays.
        package var orderID: String
        /// Units applied to that order.
        package var quantity: Int
        /// The purchase date, milliseconds since 1970.
        package var purchaseDateMilliseconds: Int64
    }

    /// An order's new state.
    package struct OrderResult: Sendable, Equatable {
        /// The order.
        package var orderID: String
        /// `delivered_quantity` after this plan.
        package var deliveredQuantity: Int
        /// `outcome` after this plan.
        package var outcome: OrderOutcome
    }

    /// A purchase in the receipt that was first delivered to another user (or, never delivered, carries the app
    /// account token of another user's order): it pays nothing here and is flagged.
    package struct ForeignPurchase: Sendable, Equatable {
        /// Its `original_transaction_id`.
        package var originalTransactionID: String
        /// The user it was first delivered to, or whose order carries its app account token.
        package var ownerUserID: String
        /// True when it was never delivered and its app account token is `ownerUserID`'s order's.
        package var byToken = false
    }

    /// Ledger rows, oldest purchase first.
    package var deliveries: [Delivery]
    /// The job's own order first, then each other order the receipt paid.
    package var orderResults: [OrderResult]
    /// Purchases of other users found in the receipt, each once.
    package var foreignPurchases: [ForeignPurchase] = []
    /// Deliveries whose original transaction has no owner yet: this plan makes the job's user its first owner.
    package var newOwners: [Delivery] = []
    /// Verified, unrefunded purchases not in the ledger that paid no order of the user: a payment nobody ordered.
    package var unclaimed: [VerifiedPurchase] = []
    /// Unclaimed purchases that were looked up by id alone and would have paid the job's order but for its app
    /// account token (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=reject`): `last_error` says so.
    package var refusedWithoutToken: [VerifiedPurchase] = []

    /// An input that is by itself one transaction already delivered to another order: a replay, which pays
    /// nothing and costs its sender the store's trust. Set by the settle, which knows the ledger's orders.
    package var replay: Replay? = nil
    /// Subscriptions another account bought that this input's user presented, to move to this user
    /// (`RECEIPTD_SUBSCRIPTION_RESTORE=transfer`).
    package var transfers: [Transfer] = []

    /// Orders this plan creates: later periods of the user's subscriptions that paid no order, each its own
    /// `renewal:<transaction_id>`, delivered by this plan.
    package var renewalOrders: [RenewalOrder] = []

    /// An order a subscription's later period makes.
    package struct RenewalOrder: Sendable, Equatable {
        /// `renewal:<transaction_id>`.
        package var orderID: String
        /// The period's product.
        package var productID: String
    }

    /// A subscription moving to the input's user.
    package struct Transfer: Sendable, Equatable {
        /// `apple:<originalTransactionId>`.
        package var subscriptionID: String
        /// Who has it now.
        package var from: String
    }

    /// A replayed transaction and the order the ledger delivered it to.
    package struct Replay: Sendable, Equatable {
        /// The ledger id.
        package var transactionID: String
        /// The order it was delivered to.
        package var orderID: String
    }

    /// Orders other than the job's that this plan makes `full`; their active jobs are closed as superseded.
    package var ordersCompletedElsewhere: [String] {
        orderResults.dropFirst().filter { $0.outcome == .full }.map(\.orderID)
    }
}
