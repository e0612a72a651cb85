/// The catch-up's cursors and records, on the connection that holds its advisory lock.
struct PostgresNotificationHistoryCursor: NotificationHistoryCursor {
    let connection: PostgresConnection

    func endMilliseconds(_ environment: StoreEnvironment) async throws -> Int64? {
        try await connection.execute(
            "SELECT end_ms FROM iap.notification_history_cursor WHERE environment = $1",
            [environment.rawValue]
        ).first?["end_ms"].flatMap(Int64.init)
    }

    func advance(_ environment: StoreEnvironment, to endMilliseconds: Int64) async throws {
        try await connection.execute(
            """
            INSERT INTO iap.notification_history_cursor (environment, end_ms, polled_at, succeeded_at)
            VALUES ($1, $2, now(), now())
            ON CONFLICT (environment) DO UPDATE SET end_ms = excluded.end_ms, polled_at = now(), succeeded_at = now(),
                last_error = NULL
            """,
            [environment.rawValue, endMilliseconds]
        )
    }

    func recordFailure(_ environment: StoreEnvironment, error: String) async throws {
        // A first run that fails leaves the row's end where the next run would start anyway: one day back.
        try await connection.execute(
            """
            INSERT INTO iap.notification_history_cursor (environment, end_ms, polled_at, failed_at, last_error)
            VALUES ($1, (extract(epoch FROM now() - interval '1 day') * 1000)::bigint, now(), now(), $2)
            ON CONFLICT (environment) DO UPDATE SET polled_at = now(), failed_at = now(), last_error = excluded.last_error
            """,
            [environment.rawValue, String(error.prefix(500))]
        )
    }

    func record(_ notification: StoreNotification) async throws -> Bool {
        try await connection.execute(
            PostgresJobQueue.recordNotification,
            PostgresJobQueue.recordNotificationParameters(notification)
        ).rows.count == 1
    }
}
