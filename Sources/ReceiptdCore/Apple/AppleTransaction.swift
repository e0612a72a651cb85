/// One entry of `receipt.in_app` or `latest_receipt_info`, reduced to what delivery needs.
public struct AppleTransaction: Sendable, Equatable {
    /// `transaction_id`; Apple's are decimal strings, forged ones have been seen as UUIDs.
    public var transactionID: String
    /// `product_id`.
    public var productID: String
    /// `quantity`, 1 when absent; `nil` when present but not a positive integer.
    public var quantity: Int?
    /// `purchase_date_ms` in milliseconds since 1970; `nil` when absent or unreadable.
    public var purchaseDateMilliseconds: Int64?
    /// True when the entry carries `cancellation_date` or `cancellation_date_ms` (refunded or revoked).
    public var isCancelled: Bool

    /// Creates a transaction.
    public init(transactionID: String, productID: String, quantity: Int? = 1, purchaseDateMilliseconds: Int64?, isCancelled: Bool = false) {
        self.transactionID = transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.isCancelled = isCancelled
    }

    /// True when the id has the form of a real App Store transaction id (decimal digits only).
    public var hasGenuineID: Bool {
        !transactionID.isEmpty && transactionID.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
