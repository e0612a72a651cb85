/// What one verified receipt delivers, and where every touched order ends up.
public struct DeliveryPlan: Sendable, Equatable {
    /// One ledger row to write.
    public struct Delivery: Sendable, Equatable {
        /// The Apple transaction being delivered.
        public var transactionID: String
        /// The purchase it goes back to, whose first owner the ledger remembers.
        public var originalTransactionID: String
        /// The order it pays.
        public var orderID: String
        /// Units applied to that order.
        public var quantity: Int
        /// The purchase date, milliseconds since 1970.
        public var purchaseDateMilliseconds: Int64
    }

    /// An order's new state.
    public struct OrderResult: Sendable, Equatable {
        /// The order.
        public var orderID: String
        /// `delivered_quantity` after this plan.
        public var deliveredQuantity: Int
        /// `outcome` after this plan.
        public var outcome: OrderOutcome
    }

    /// A purchase in the receipt that was first delivered to another user: it pays nothing here and is flagged.
    public struct ForeignPurchase: Sendable, Equatable {
        /// Its `original_transaction_id`.
        public var originalTransactionID: String
        /// The user it was first delivered to.
        public var ownerUserID: String
    }

    /// Ledger rows, oldest purchase first.
    public var deliveries: [Delivery]
    /// The job's own order first, then each other order the receipt paid.
    public var orderResults: [OrderResult]
    /// Purchases of other users found in the receipt, each once.
    public var foreignPurchases: [ForeignPurchase] = []
    /// Deliveries whose original transaction has no owner yet: this plan makes the job's user its first owner.
    public var newOwners: [Delivery] = []
    /// Verified, unrefunded purchases not in the ledger that paid no order of the user: a payment nobody ordered.
    public var unclaimed: [VerifiedPurchase] = []
    /// Unclaimed purchases that were looked up by id alone and would have paid the job's order but for its app
    /// account token (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=reject`): `last_error` says so.
    public var refusedWithoutToken: [VerifiedPurchase] = []

    /// Orders other than the job's that this plan makes `full`; their active jobs are closed as superseded.
    public var ordersCompletedElsewhere: [String] {
        orderResults.dropFirst().filter { $0.outcome == .full }.map(\.orderID)
    }
}
