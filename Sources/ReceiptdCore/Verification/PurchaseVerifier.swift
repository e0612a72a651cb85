/// Verifies one kind of job with its store: the seam each source of purchases plugs into. What comes out is
/// store-neutral; the outcome rules and the ledger never see how it was obtained.
protocol PurchaseVerifier: Sendable {
    /// One attempt for `job`. Cancelling the calling task abandons a request in flight.
    func attempt(_ job: ClaimedJob) async -> VerificationAttempt
}

/// One attempt's verdict, and what the store answered for `iap.attempts` and the metrics.
struct VerificationAttempt: Sendable {
    /// What to do with the job.
    var verdict: Verdict
    /// The environment whose answer decided, if one did.
    var environment: StoreEnvironment?
    /// The store's own status or error code, if it gave one.
    var storeStatus: Int?
    /// The HTTP status of the deciding answer, if an HTTP answer came.
    var httpStatus: Int?
    /// Whether a store was called at all (a signed transaction is verified without one).
    var calledStore: Bool = true
}
