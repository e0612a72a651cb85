/// Where the notification history catch-up keeps its lock and cursors, part of the queue seam: `PostgresJobQueue`
/// implements it.
package protocol NotificationHistoryStore: Sendable {
    /// Takes the catch-up's session-level advisory lock and runs `body` with the cursor on the lock's session;
    /// `nil` when another session holds the lock (nothing runs then).
    func withNotificationHistoryLock<T: Sendable>(
        _ body: @Sendable (any NotificationHistoryCursor) async throws -> T
    ) async throws -> T?
}

/// What the catch-up reads and writes while it holds its lock: the cursor of each environment, and the
/// notifications it found (recorded as the intake records them: `NotificationIntake`).
package protocol NotificationHistoryCursor: NotificationIntake {
    /// Where the last successful catch-up of `environment` got to (the end of its window, milliseconds), if one did.
    func endMilliseconds(_ environment: StoreEnvironment) async throws -> Int64?
    /// Records a successful catch-up of `environment`: the next window follows on from `endMilliseconds`.
    func advance(_ environment: StoreEnvironment, to endMilliseconds: Int64) async throws
    /// Records a failed catch-up of `environment`; the cursor stays where it was.
    func recordFailure(_ environment: StoreEnvironment, error: String) async throws
}
