import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `store` and `cause` (`store_failing`, `breaker_open`): orders granted provisionally.
    package static let provisionalGrants = "receiptd_provisional_grants_total"
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
}
