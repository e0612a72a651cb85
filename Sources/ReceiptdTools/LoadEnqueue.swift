import ReceiptdCore

/// One `iap.enqueue_receipt` or `iap.enqueue_transaction` call of a load run, as a row of the batch's `jsonb` parameter.
struct LoadEnqueue: Codable, Sendable {
    /// Order id.
    var o: String
    /// User id.
    var u: String
    /// Product id.
    var p: String
    /// Receipt data, or for a transaction the signed transaction.
    var r: String
    /// Quantity.
    var q: Int
    /// Which enqueue function takes it.
    var kind: JobKind = .receipt

    private enum CodingKeys: String, CodingKey { case o, u, p, r, q }
}
