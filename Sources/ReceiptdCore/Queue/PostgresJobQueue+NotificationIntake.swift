import Foundation

extension PostgresJobQueue: NotificationIntake {
    /// One statement, committed on its own: the store is answered only after it returns.
    package func record(_ notification: StoreNotification) async throws -> Bool {
        try await pool.execute(Self.recordNotification, Self.recordNotificationParameters(notification)).rows.count == 1
    }

    /// The parameters of `recordNotification` for `notification`, in its order.
    static func recordNotificationParameters(_ notification: StoreNotification) -> [any SQLParameter] {
        [
            notification.store.rawValue, notification.notificationID, notification.type, notification.subtype,
            notification.transactionID, notification.originalTransactionID, notification.environment?.rawValue,
            notification.signedAt.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) },
            notification.source.rawValue, notification.payload, notification.awaitingLookup,
        ]
    }

    /// Channel on which a new notification wakes the daemons' processors (payload: its id); a hint, as every
    /// notification is: the processors read the table.
    static let notificationsChannel = "iap_store_notification"

    /// The same store id again inserts nothing (the store retried, or the catch-up found one the intake had); a new
    /// one is announced on `iap_store_notification` when the insert commits. One row back means new.
    package static let recordNotification = """
        WITH inserted AS (
            INSERT INTO iap.store_notifications (store, notification_id, notification_type, subtype, transaction_id,
                                                 original_transaction_id, environment, signed_at, source, payload,
                                                 awaiting_lookup)
            VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::bigint / 1000.0), $9, $10::jsonb, $11)
            ON CONFLICT (store, notification_id) DO NOTHING
            RETURNING id
        )
        SELECT pg_notify('\(notificationsChannel)', id::text) FROM inserted
        """
}
