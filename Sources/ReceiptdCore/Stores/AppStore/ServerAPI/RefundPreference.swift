/// What receiptd's consumption answers ask of Apple's refund decision (`APPLE_REFUND_PREFERENCE`): the field
/// `refundPreference` of Send Consumption Information.
package enum RefundPreference: String, Sendable, CaseIterable {
    /// `none` (the default): the field is left out, and Apple decides on what else it is told.
    case none
    /// `decline`: `DECLINE`.
    case decline
    /// `grant_full`: `GRANT_FULL`.
    case grantFull = "grant_full"

    /// The value Apple takes; nil when the field is left out.
    package var appleValue: String? {
        switch self {
        case .none: nil
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        }
    }
}
