import CoreMetrics

extension ReceiptdMetrics.Name {
    /// Counter by `type` (an event type) and `result` (`delivered`, `retried`, `failed`, `gone`): webhook attempts.
    package static let webhookDeliveries = "receiptd_webhook_deliveries_total"
}

extension ReceiptdMetrics {
    /// One attempt to send an event of `type` ended in `result`.
    package func webhookDelivery(type: WebhookEventType, result: String) {
        Counter(
            label: Name.webhookDeliveries,
            dimensions: [("type", type.rawValue), ("result", result)],
            factory: factory
        )
        .increment()
    }
}
