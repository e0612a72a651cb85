/// One row of `iap.store_notifications` as operators see it: what came, and what receiptd did with it.
/// The payload is left out: `receiptd notifications` never prints it.
package struct NotificationSummary: Sendable, Codable, Equatable {
    /// When the intake (or the catch-up) recorded it (ISO-8601, UTC; so are the other times).
    package var receivedAt: String
    /// `apple` or `google`.
    package var store: String
    /// The store's id of the notification (Apple's `notificationUUID`).
    package var notificationID: String
    /// The store's type: `REFUND`, `CONSUMPTION_REQUEST`, `TEST`, …
    package var type: String
    /// The store's subtype, if any.
    package var subtype: String?
    /// The transaction it is about, if any.
    package var transactionID: String?
    /// `Production` or `Sandbox`, when it says.
    package var environment: String?
    /// `push` (the store sent it to the intake) or `history` (the catch-up found it).
    package var source: String
    /// When the daemons processed it; `nil` while it waits.
    package var processedAt: String?
    /// What processing did: `revoked`, `recorded`, `consumption_requested`, …
    package var result: String?
    /// Why processing refused it or failed, if it did.
    package var error: String?
}

extension NotificationSummary {
    /// The columns the queries select, times as UTC text.
    static let columns = """
        \(OperatorQueries.utc("n.received_at")) AS received_at, n.store, n.notification_id, n.notification_type,
        n.subtype, n.transaction_id, n.environment, n.source, \(OperatorQueries.utc("n.processed_at")) AS processed_at,
        n.result, n.error
        """

    /// Reads a row selected with `columns`.
    init(row: QueryResult.Row) throws {
        self.init(
            receivedAt: try row.string("received_at"),
            store: try row.string("store"),
            notificationID: try row.string("notification_id"),
            type: try row.string("notification_type"),
            subtype: row["subtype"],
            transactionID: row["transaction_id"],
            environment: row["environment"],
            source: try row.string("source"),
            processedAt: row["processed_at"],
            result: row["result"],
            error: row["error"]
        )
    }
}
