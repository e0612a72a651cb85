/// The webhook endpoint's row (`iap.webhook_endpoint`): whether changes write events, and whether a 410 Gone
/// disabled sending.
package struct WebhookEndpointStatus: Sendable, Codable, Equatable {
    /// A daemon runs with `RECEIPTD_WEBHOOK_URL`, so changes write events (set by each daemon at start).
    package var configured = false
    /// When the endpoint answered 410 Gone: nothing is sent, every event waits, until `receiptd webhooks enable`.
    package var disabledAt: String? = nil
    /// The event the endpoint answered 410 Gone to.
    package var disabledEvent: String? = nil
    /// When an operator last enabled it.
    package var enabledAt: String? = nil
    /// Who did (the OS user running `receiptd webhooks enable`).
    package var enabledBy: String? = nil

    /// Not configured, never disabled.
    package init() {}

    /// Whether a 410 Gone stopped sending.
    package var disabled: Bool { disabledAt != nil }
}

extension WebhookEndpointStatus {
    /// The endpoint's one row, times as UTC text.
    static let query = """
        SELECT configured, \(OperatorQueries.utc("disabled_at")) AS disabled_at, disabled_event,
               \(OperatorQueries.utc("enabled_at")) AS enabled_at, enabled_by
        FROM iap.webhook_endpoint
        """

    /// Reads the row of `query`.
    init(row: QueryResult.Row) throws {
        self.init()
        configured = try row.bool("configured")
        disabledAt = row["disabled_at"]
        disabledEvent = row["disabled_event"]
        enabledAt = row["enabled_at"]
        enabledBy = row["enabled_by"]
    }
}
