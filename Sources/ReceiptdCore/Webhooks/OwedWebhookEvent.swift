/// An event claimed for sending: its id, type and the exact body to sign and send.
package struct OwedWebhookEvent: Sendable, Equatable {
    /// The `webhook-id` (`msg_…`), the same on every attempt.
    package var id: String
    /// What it reports.
    package var type: WebhookEventType
    /// The order it concerns, if any.
    package var orderID: String?
    /// `{"type": …, "timestamp": …, "data": {…}}`, byte for byte the same on every attempt.
    package var body: String
    /// Attempts so far, this one included.
    package var attempts: Int

    /// Creates an owed event.
    package init(id: String, type: WebhookEventType, orderID: String?, body: String, attempts: Int) {
        self.id = id
        self.type = type
        self.orderID = orderID
        self.body = body
        self.attempts = attempts
    }
}
