/// The values of the SQL enum `iap.outcome`.
package enum OrderOutcome: String, Sendable, Equatable, CaseIterable {
    /// Everything the order asked for was delivered.
    case full
    /// Some, not all, was delivered.
    case partial
    /// The store said valid, but the answer holds no purchases (the trace of a faked purchase, or a stale receipt).
    case noInApp = "no_in_app"
    /// Purchases exist, but none pays this order.
    case unmatched
    /// The store rejected the input, or it belongs to another app.
    case invalid
    /// The store could not be asked successfully within the allowed attempts.
    case failed
}
