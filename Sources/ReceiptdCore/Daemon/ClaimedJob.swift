/// A job this daemon has claimed (`running`, locked by it), with its order.
public struct ClaimedJob: Sendable, Equatable {
    /// `iap.jobs.id`.
    public var id: Int64
    /// The receipt to verify.
    public var receiptData: String
    /// Attempts including the current one.
    public var attempts: Int
    /// 21002 answers so far.
    public var malformedCount: Int
    /// The order, as it was when claimed.
    public var order: OrderSnapshot
    /// The order's user.
    public var userID: String
}
