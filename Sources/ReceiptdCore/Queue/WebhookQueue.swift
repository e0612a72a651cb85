/// Where the webhook senders find the events owed to the game server (`iap.webhook_events`) and record what came
/// of each attempt, part of the queue seam: `PostgresJobQueue` implements it.
package protocol WebhookQueue: Sendable {
    /// Writes whether changes write events: true when this daemon runs with `RECEIPTD_WEBHOOK_URL`.
    func setWebhookEndpoint(configured: Bool) async throws
    /// Claims up to `limit` due `pending` events no other daemon holds, for `lease`, counting the attempt: none
    /// while the endpoint is disabled, and none whose order has an earlier event still pending.
    func claimWebhookEvents(limit: Int, lease: Duration) async throws -> [OwedWebhookEvent]
    /// Records attempts in one statement; an event no longer held by this claim (its lease lapsed and it was
    /// claimed again, by this daemon or another, or an operator replayed it) is left alone.
    func recordWebhookAttempts(_ attempts: [WebhookAttempt]) async throws
    /// The endpoint answered `410 Gone` to `eventID`: disables it. True when this call disabled it.
    func disableWebhooks(eventID: String) async throws -> Bool
}

/// One attempt's result, as recorded.
package struct WebhookAttempt: Sendable, Equatable {
    /// The event.
    package var id: String
    /// Which attempt this was (the claim's `attempts`): with `locked_by`, what tells this claim from a later one.
    package var attempts: Int
    /// Its state after the attempt: `pending` (retried, or waiting for the endpoint), `delivered` or `failed`.
    package var state: WebhookEventState
    /// For `pending`: due again after this.
    package var retryAfter: Duration
    /// The endpoint's status, if it answered.
    package var status: Int?
    /// What went wrong, if anything.
    package var error: String?

    /// Creates an attempt's record.
    package init(
        id: String,
        attempts: Int,
        state: WebhookEventState,
        retryAfter: Duration = .zero,
        status: Int?,
        error: String?
    ) {
        self.id = id
        self.attempts = attempts
        self.state = state
        self.retryAfter = retryAfter
        self.status = status
        self.error = error
    }
}
