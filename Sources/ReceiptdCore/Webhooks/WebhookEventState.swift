/// Where an event is in its delivery (`iap.webhook_events.state`).
package enum WebhookEventState: String, Sendable, Equatable, CaseIterable, Codable {
    /// Not yet answered with 2xx: due at `next_attempt_at` (or waiting for an earlier event of its order, or for
    /// the endpoint to be enabled again).
    case pending
    /// The endpoint answered 2xx.
    case delivered
    /// Every retry failed; `receiptd webhooks replay` sends it again.
    case failed
}
