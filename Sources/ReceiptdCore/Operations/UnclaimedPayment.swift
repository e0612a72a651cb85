/// One row of `iap.unclaimed_payments`: a verified purchase that paid no order of the receipt's owner.
package struct UnclaimedPayment: Sendable, Codable, Equatable {
    /// The ledger id: Apple's transaction id, or Google's order id (`GoogleLedgerID`).
    package var transactionID: String
    /// The store that was paid: `apple` or `google`.
    package var store = "apple"
    /// What was bought.
    package var productID: String
    /// Units paid for.
    package var quantity: Int
    /// When it was bought (ISO-8601, UTC).
    package var purchaseDate: String?
    /// `Production` or `Sandbox`.
    package var environment: String?
    /// The owner of the order whose receipt carried it; nil for one the store reported itself (ONE_TIME_CHARGE).
    package var userID: String?
    /// That order, if any.
    package var orderID: String?
    /// The job that found it, if any.
    package var jobID: Int64?
    /// The `appAccountToken` a purchase the store reported itself carried: the account that started it.
    package var appAccountToken: String? = nil
    /// The store notification that reported it, if one did (`iap.store_notifications.id`).
    package var notificationID: Int64? = nil
    /// When Google refunds it unless it is acknowledged (ISO-8601, UTC); `nil` for Apple's payments, which need
    /// no acknowledgement.
    package var acknowledgeBy: String? = nil
    /// When it was first seen (ISO-8601, UTC).
    package var firstSeenAt: String
    /// The order it was delivered to since, if any.
    package var assignedOrderID: String?
    /// When that happened.
    package var assignedAt: String?
}

/// What `receiptd assign` did.
package struct AssignResult: Sendable, Codable, Equatable {
    /// The payment delivered.
    package var transactionID: String
    /// The order it now pays.
    package var orderID: String
    /// The order's outcome after it (`full` or `partial`).
    package var outcome: String
}
