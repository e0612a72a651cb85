/// One consumption answer owed to Apple, as claimed from `iap.consumption_requests`.
package struct OwedConsumptionAnswer: Sendable, Equatable {
    /// The request's row: the id of its CONSUMPTION_REQUEST in `iap.store_notifications`.
    package var notificationID: Int64
    /// The transaction Apple asks about.
    package var transactionID: String
    /// The environment the request came from, where the answer goes.
    package var environment: StoreEnvironment
    /// Tries so far, this one included.
    package var attempts: Int
    /// Whether the ledger delivered the transaction and the game granted it, read when it was claimed.
    package var deliveredAndGranted: Bool
}
