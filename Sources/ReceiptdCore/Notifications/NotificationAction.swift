import Foundation

/// What processing does for one store notification (`NotificationPlanner`'s answer).
package enum NotificationAction: Sendable, Equatable {
    /// Revoke the transaction's ledger row, or remember it as revoked when it is not delivered yet.
    /// `reason` is `iap.deliveries.revocation_reason`; `percentage` a prorated refund's share (thousandths of a
    /// percent), nil for all of it.
    case revoke(transactionID: String, reason: String, percentage: Int?, revokedAtMilliseconds: Int64)
    /// Lift the transaction's revocation (`REFUND_REVERSED`).
    case reinstate(transactionID: String)
    /// Queue a consumption answer about the transaction (`CONSUMPTION_REQUEST`).
    case requestConsumption(NotifiedTransaction)
    /// Settle a purchase Apple reported itself (`ONE_TIME_CHARGE`) to its order, or record it as unclaimed.
    case settleCharge(NotifiedTransaction)
    /// Nothing to do beyond recording it (`recorded`).
    case record
    /// Not acted on (`ignored`).
    case ignore
    /// Refused for good: `failed`, with this reason as the row's `error`.
    case fail(String)
}
