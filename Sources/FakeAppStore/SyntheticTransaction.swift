/// One purchase inside a ``SyntheticReceipt``'s `in_app` or `latest_receipt_info`.
///
/// Fields are strings because Apple sends them as strings; to test other
/// shapes (numbers, missing fields) build the receipt JSON by hand instead,
/// since the stand-in copies those arrays verbatim.
package struct SyntheticTransaction: Codable, Sendable, Equatable {
    /// Apple's `transaction_id`.
    package var transactionID: String
    /// Apple's `original_transaction_id`.
    package var originalTransactionID: String
    /// Apple's `product_id`.
    package var productID: String
    /// Apple's `quantity`.
    package var quantity: String
    /// Apple's `purchase_date_ms` (milliseconds since 1970, as a string).
    package var purchaseDateMilliseconds: String
    /// Apple's `cancellation_date_ms`; present only for refunded purchases.
    package var cancellationDateMilliseconds: String?

    /// Creates a transaction; the original id defaults to the transaction's own id.
    package init(
        transactionID: String,
        originalTransactionID: String? = nil,
        productID: String,
        quantity: String = "1",
        purchaseDateMilliseconds: String,
        cancellationDateMilliseconds: String? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.cancellationDateMilliseconds = cancellationDateMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case quantity
        case purchaseDateMilliseconds = "purchase_date_ms"
        case cancellationDateMilliseconds = "cancellation_date_ms"
    }
}
