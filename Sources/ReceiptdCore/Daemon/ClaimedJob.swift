/// A job this daemon has claimed (`running`, locked by it), with its order.
package struct ClaimedJob: Sendable, Equatable {
    /// `iap.jobs.id`.
    package var id: Int64
    /// What `input` is, and so which verifier takes the job.
    package var kind: JobKind
    /// What the client sent (`iap.jobs.receipt_data`): a base64 receipt, a signed transaction or a transaction id.
    package var input: String
    /// Attempts including the current one.
    package var attempts: Int
    /// 21002 answers so far.
    package var malformedCount: Int
    /// The order, as it was when claimed.
    package var order: OrderSnapshot
    /// The order's user.
    package var userID: String
    /// When the job was enqueued, milliseconds since 1970: how long a pending Google purchase has waited.
    package var createdAtMilliseconds: Int64
    /// For a Google Play purchase: its product's kind in the catalogue, which says whether its token is a
    /// subscription's; nil when the product is not in it (or for the App Store).
    package var productKind: ProductKind? = nil
}
