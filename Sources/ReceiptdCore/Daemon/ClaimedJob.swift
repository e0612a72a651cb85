/// A job this daemon has claimed (`running`, locked by it), with its order.
public struct ClaimedJob: Sendable, Equatable {
    /// `iap.jobs.id`.
    public var id: Int64
    /// What `input` is, and so which verifier takes the job.
    public var kind: JobKind
    /// What the client sent (`iap.jobs.receipt_data`): a base64 receipt, a signed transaction or a transaction id.
    public var input: String
    /// Attempts including the current one.
    public var attempts: Int
    /// 21002 answers so far.
    public var malformedCount: Int
    /// The order, as it was when claimed.
    public var order: OrderSnapshot
    /// The order's user.
    public var userID: String
    /// When the job was enqueued, milliseconds since 1970: how long a pending Google purchase has waited.
    public var createdAtMilliseconds: Int64
}
