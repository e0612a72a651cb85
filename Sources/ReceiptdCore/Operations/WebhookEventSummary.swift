/// One row of `iap.webhook_events` as operators see it: what was told, to whom, and how its delivery goes.
package struct WebhookEventSummary: Sendable, Codable, Equatable {
    /// The `webhook-id` (`msg_…`): the receiver deduplicates on it, and a replay keeps it.
    package var id: String
    /// `order.verified`, `delivery.revoked`, `delivery.reinstated`, `payment.unclaimed` or `order.failed`.
    package var type: String
    /// The order it is about, if any.
    package var orderID: String?
    /// The player, if known.
    package var userID: String?
    /// `pending`, `delivered` or `failed`.
    package var state: WebhookEventState
    /// Attempts since it was written or last replayed.
    package var attempts: Int
    /// The HTTP status of the last attempt, if one answered.
    package var lastStatus: Int?
    /// Why the last attempt failed, if it did.
    package var lastError: String?
    /// When the change that wrote it committed (ISO-8601, UTC; so are the other times).
    package var createdAt: String
    /// When a pending event is due; `nil` once delivered or failed.
    package var nextAttemptAt: String?
    /// When the endpoint answered 2xx.
    package var deliveredAt: String?
    /// The body's `data`, as stored.
    package var payload: JSONValue
}

extension WebhookEventSummary {
    /// The columns the queries select from `iap.webhook_events w`, times as UTC text.
    static let columns = """
        w.id, w.type, w.order_id, w.user_id, w.state, w.attempts, w.last_status, w.last_error,
        \(OperatorQueries.utc("w.created_at")) AS created_at,
        CASE WHEN w.state = 'pending' THEN \(OperatorQueries.utc("w.next_attempt_at")) END AS next_attempt_at,
        \(OperatorQueries.utc("w.delivered_at")) AS delivered_at, w.payload::text AS payload
        """

    /// Reads a row selected with `columns`.
    init(row: QueryResult.Row) throws {
        guard let state = WebhookEventState(rawValue: try row.string("state")) else {
            throw PostgresError(kind: .query, message: "webhook_events: unknown state")
        }
        self.init(
            id: try row.string("id"),
            type: try row.string("type"),
            orderID: row["order_id"],
            userID: row["user_id"],
            state: state,
            attempts: try row.int("attempts"),
            lastStatus: row.optionalInt("last_status"),
            lastError: row["last_error"],
            createdAt: try row.string("created_at"),
            nextAttemptAt: row["next_attempt_at"],
            deliveredAt: row["delivered_at"],
            payload: try JSONValue(parsing: try row.string("payload"))
        )
    }
}
