/// The webhooks at a glance, as `receiptd status` shows them: the endpoint, the events waiting or failed, and
/// what was delivered in the last hour.
package struct WebhookFigures: Sendable, Codable, Equatable {
    /// The endpoint: configured, disabled by a 410 Gone.
    package var endpoint = WebhookEndpointStatus()
    /// Events not yet delivered (due, retrying, or waiting for an earlier event of their order or for `enable`).
    package var pending = 0
    /// Events whose every retry failed: `receiptd webhooks replay` sends them again.
    package var failed = 0
    /// Seconds since the oldest pending event was written; `nil` when none is pending.
    package var oldestPendingSeconds: Int? = nil
    /// Events delivered in the last hour.
    package var deliveredLastHour = 0

    /// No endpoint, no events.
    package init() {}

    /// The counts in one row.
    static let query = """
        SELECT (SELECT count(*) FROM iap.webhook_events WHERE state = 'pending') AS pending,
               (SELECT count(*) FROM iap.webhook_events WHERE state = 'failed') AS failed,
               (SELECT extract(epoch FROM now() - min(created_at))::int FROM iap.webhook_events
                WHERE state = 'pending') AS oldest_pending,
               (SELECT count(*) FROM iap.webhook_events
                WHERE state = 'delivered' AND delivered_at > now() - interval '1 hour') AS delivered_last_hour
        """

    /// Reads the row of `query`, with the endpoint read apart.
    init(row: QueryResult.Row, endpoint: WebhookEndpointStatus) throws {
        self.init()
        self.endpoint = endpoint
        pending = try row.int("pending")
        failed = try row.int("failed")
        oldestPendingSeconds = row.optionalInt("oldest_pending")
        deliveredLastHour = try row.int("delivered_last_hour")
    }
}
