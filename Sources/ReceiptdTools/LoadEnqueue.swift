/// One `iap.enqueue_receipt` call of a load run, as a row of the batch's `jsonb` parameter.
struct LoadEnqueue: Codable, Sendable {
    /// Order id.
    var o: String
    /// User id.
    var u: String
    /// Product id.
    var p: String
    /// Receipt data.
    var r: String
    /// Quantity.
    var q: Int
}
