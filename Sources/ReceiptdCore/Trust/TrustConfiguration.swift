/// Seed 004's trust levels and the provisional grants they allow; the documented defaults unless a field is set.
package struct TrustConfiguration: Sendable, Equatable {
    /// Whether provisional grants are given (`RECEIPTD_PROVISIONAL`): off unless the operator decides to risk
    /// unverified goods. Trust is tracked either way.
    package var provisional = ProvisionalGrants.off
    /// The level of an App Store player without a row (`RECEIPTD_TRUST_INITIAL_APPLE`).
    package var initialApple = TrustLevel.trusted
    /// The level of a Google Play player without a row (`RECEIPTD_TRUST_INITIAL_GOOGLE`).
    package var initialGoogle = TrustLevel.untrusted
    /// Orders in a row that end paid to restore trust (`RECEIPTD_TRUST_RESTORE_AFTER`).
    package var restoreAfter = 3
    /// How long a trusted player's order may fail transiently, from its input's arrival, before it is granted
    /// provisionally (`RECEIPTD_PROVISIONAL_AFTER`, at least a second).
    package var provisionalAfter: Duration = .seconds(30)
    /// Most unconfirmed provisional grants per player at a time (`RECEIPTD_PROVISIONAL_LIMIT`).
    package var provisionalLimit = 2
    /// How often a daemon looks for orders to grant provisionally, while grants are on.
    package var grantInterval: Duration = .seconds(1)

    /// Creates a configuration with the documented defaults.
    package init() {}

    /// The initial level of `store`'s players.
    package func initialLevel(of store: Store) -> TrustLevel {
        switch store {
        case .apple: initialApple
        case .google: initialGoogle
        }
    }
}

/// `RECEIPTD_PROVISIONAL`: whether trusted players' orders are granted provisionally while their store fails.
package enum ProvisionalGrants: String, Sendable, Equatable, CaseIterable {
    /// Every order waits for verification (the default).
    case off
    /// Trusted players' orders are granted provisionally.
    case on
}
