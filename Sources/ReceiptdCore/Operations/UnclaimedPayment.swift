/// One row of `iap.unclaimed_payments`: a verified purchase that paid no order of the receipt's owner.
public struct UnclaimedPayment: Sendable, Codable, Equatable {
    /// Apple's transaction id.
    public var transactionID: String
    /// What was bought.
    public var productID: String
    /// Units paid for.
    public var quantity: Int
    /// When it was bought (ISO-8601, UTC).
    public var purchaseDate: String?
    /// `Production` or `Sandbox`.
    public var environment: String?
    /// The owner of the order whose receipt carried it.
    public var userID: String
    /// That order.
    public var orderID: String
    /// The job that found it.
    public var jobID: Int64
    /// When it was first seen (ISO-8601, UTC).
    public var firstSeenAt: String
    /// The order it was delivered to since, if any.
    public var assignedOrderID: String?
    /// When that happened.
    public var assignedAt: String?
}

/// What `receiptd assign` did.
public struct AssignResult: Sendable, Codable, Equatable {
    /// The payment delivered.
    public var transactionID: String
    /// The order it now pays.
    public var orderID: String
    /// The order's outcome after it (`full` or `partial`).
    public var outcome: String
}
