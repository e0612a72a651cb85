import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `result` (`read`, `periods_found`, `retry`, `failed`): re-reads of App Store subscriptions.
    package static let subscriptionReads = "receiptd_subscription_reads_total"
    /// Gauge (sampled) by `state`: subscriptions in each state of the model.
    package static let subscriptionsByState = "receiptd_subscriptions"
    /// Gauge (sampled): subscriptions whose re-read is over a minute late.
    package static let subscriptionReadsOverdue = "receiptd_subscription_reads_overdue"
    /// Gauge (sampled): subscriptions whose re-read the store refuses for good, read again every
    /// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`.
    package static let subscriptionReadsFailing = "receiptd_subscription_reads_failing"
}

extension ReceiptdMetrics {
    /// A subscription's re-read came to `result`.
    package func recordSubscriptionRead(result: String) {
        Counter(label: Name.subscriptionReads, dimensions: [("result", result)], factory: factory).increment()
    }

    /// A sample of the subscriptions: how many are in each state, and how many re-reads are overdue, and how many
    /// the store refuses.
    package func subscriptionFigures(_ figures: SubscriptionFigures) {
        for state in SubscriptionState.allCases {
            Meter(label: Name.subscriptionsByState, dimensions: [("state", state.rawValue)], factory: factory)
                .set(figures.byState[state] ?? 0)
        }
        Meter(label: Name.subscriptionReadsOverdue, factory: factory).set(figures.overdueReads)
        Meter(label: Name.subscriptionReadsFailing, factory: factory).set(figures.failingReads)
    }
}
