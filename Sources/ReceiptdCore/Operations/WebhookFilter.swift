/// Which webhook events `receiptd webhooks` lists.
package struct WebhookFilter: Sendable, Equatable {
    /// Only events in this state.
    package var state: WebhookEventState?
    /// Only events written since then.
    package var since: TimeBound?
    /// At most this many, newest first.
    package var limit: Int

    /// Creates a filter; with no arguments, the 50 newest events.
    package init(state: WebhookEventState? = nil, since: TimeBound? = nil, limit: Int = 50) {
        self.state = state
        self.since = since
        self.limit = limit
    }
}
