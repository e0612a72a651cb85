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
