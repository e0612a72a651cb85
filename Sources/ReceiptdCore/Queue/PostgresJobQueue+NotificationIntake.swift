import Foundation

extension PostgresJobQueue: NotificationIntake {
    /// One statement, committed on its own: the store is answered only after it returns.
    package func record(_ notification: StoreNotification) async throws -> Bool {
        let result = try await pool.execute(
            Self.recordNotification,
            [
                notification.store.rawValue, notification.notificationID, notification.type, notification.subtype,
                notification.transactionID, notification.originalTransactionID, notification.environment?.rawValue,
                notification.signedAt.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) },
                notification.source.rawValue, notification.payload,
            ]
        )
        return result.affectedRows == 1
    }

    /// The same store id again inserts nothing (the store retried, or the catch-up found one the intake had).
    static let recordNotification = """
        INSERT INTO iap.store_notifications (store, notification_id, notification_type, subtype, transaction_id,
                                             original_transaction_id, environment, signed_at, source, payload)
        VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::bigint / 1000.0), $9, $10::jsonb)
        ON CONFLICT (store, notification_id) DO NOTHING
        """
}
