import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `store` and `cause` (`store_failing`, `breaker_open`): orders granted provisionally.
    package static let provisionalGrants = "receiptd_provisional_grants_total"
    /// Gauge (sampled) by `state`: provisional grants `unconfirmed` now, `confirmed` and `refuted` in the last 24 h.
    package static let provisionalGrantsByState = "receiptd_provisional_grants"
    /// Gauge (sampled) by `store`: players with `iap.user_trust.trusted = false`.
    package static let untrustedUsers = "receiptd_untrusted_users"
}

extension ReceiptdMetrics {
    /// An order of `store` was granted provisionally for `cause`.
    package func provisionalGrant(store: Store, cause: ProvisionalGrantCause) {
        Counter(
            label: Name.provisionalGrants,
            dimensions: [("store", store.rawValue), ("cause", cause.rawValue)],
            factory: factory
        )
        .increment()
    }

    /// A sample of the trust levels: provisional grants by state, untrusted players by store.
    package func trustFigures(_ figures: TrustFigures) {
        let grants = figures.provisionalGrants
        for (state, count) in [
            (ProvisionalGrantState.unconfirmed, grants.unconfirmed), (.confirmed, grants.confirmedLastDay),
            (.refuted, grants.refutedLastDay),
        ] {
            Meter(label: Name.provisionalGrantsByState, dimensions: [("state", state.rawValue)], factory: factory)
                .set(count)
        }
        for store in Store.allCases {
            Meter(label: Name.untrustedUsers, dimensions: [("store", store.rawValue)], factory: factory)
                .set(figures.untrustedUsers[store])
        }
    }
}
