import Foundation

extension PostgresJobQueue: NotificationHistoryStore {
    /// `pg_try_advisory_lock` key of the notification history catch-up: "rcdtnhis".
    package static let notificationHistoryLockKey: Int64 = 0x7263_6474_6E68_6973

    /// Takes the lock on one pooled connection and runs `body` on that connection, so that the lock, the cursors
    /// and the records share one session.
    package func withNotificationHistoryLock<T: Sendable>(
        _ body: @Sendable (any NotificationHistoryCursor) async throws -> T
    ) async throws -> T? {
        try await pool.withConnection { connection in
            guard
                try await connection.execute(
                    "SELECT pg_try_advisory_lock($1) AS locked",
                    [Self.notificationHistoryLockKey]
                ).first?["locked"] == "t"
            else { return nil }
            do {
                let value = try await body(PostgresNotificationHistoryCursor(connection: connection))
                _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.notificationHistoryLockKey])
                return value
            } catch {
                _ = try? await connection.execute("SELECT pg_advisory_unlock($1)", [Self.notificationHistoryLockKey])
                throw error
            }
        }
    }
}

extension PostgresJobQueue {
    /// The parameters of `recordNotification` for `notification`, in its order.
    static func recordNotificationParameters(_ notification: StoreNotification) -> [any SQLParameter] {
        [
            notification.store.rawValue, notification.notificationID, notification.type, notification.subtype,
            notification.transactionID, notification.originalTransactionID, notification.environment?.rawValue,
            notification.signedAt.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) },
            notification.source.rawValue, notification.payload,
        ]
    }
}
