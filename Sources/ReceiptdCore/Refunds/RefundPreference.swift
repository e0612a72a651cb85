/// What an answer to a refund request asks the store to do (`iap.refund_requests.preference`).
package enum RefundPreference: String, Sendable, Codable, CaseIterable {
    /// The store decides on what else it is told: Apple's field is left out, Google is told `NEUTRAL`.
    case none
    /// Keep the money: the goods were delivered and used.
    case decline
    /// Refund all of it.
    case grantFull = "grant_full"
    /// Refund the share not consumed (with the consumed share).
    case grantProrated = "grant_prorated"

    /// Apple's `refundPreference` for a product of `kind`; nil leaves the field out. Apple prorates no
    /// auto-renewable: `GRANT_FULL` instead.
    package func appleValue(kind: ProductKind?) -> String? {
        switch self {
        case .none: nil
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        case .grantProrated: kind == .autoRenewable ? "GRANT_FULL" : "GRANT_PRORATED"
        }
    }

    /// Google's `refundPreference` (`orders.reviewrefund`).
    package var googleValue: String {
        switch self {
        case .none: "NEUTRAL"
        case .decline: "DECLINE"
        case .grantFull, .grantProrated: "APPROVE"
        }
    }
}
