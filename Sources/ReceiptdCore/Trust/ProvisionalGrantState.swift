/// Where a provisional grant stands (`iap.provisional_grants.state`).
package enum ProvisionalGrantState: String, Sendable, Equatable, CaseIterable, Codable {
    /// Granted, verification still going on: owed to the game as `provisional:<order_id>`.
    case unconfirmed
    /// A transaction paid the order: the ledger holds it, the provisional row is gone.
    case confirmed
    /// The order ended unpaid: handed back through `iap.owed_revocations` (`provisional_refuted`).
    case refuted
    /// Its verification was cancelled (an operator cancelled the order's job) or the game closed the order: handed
    /// back through `iap.owed_revocations` (`provisional_cancelled`), the player's trust kept.
    case cancelled
}
