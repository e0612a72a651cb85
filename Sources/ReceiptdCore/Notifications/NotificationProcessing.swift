/// Where the daemons process recorded store notifications, part of the queue seam: `PostgresJobQueue`
/// implements it. Each notification's writes and its `processed_at` commit together.
package protocol NotificationProcessing: Sendable {
    /// Claims up to `limit` due unprocessed notifications (skipping those another daemon holds, and those after an
    /// unprocessed earlier one about the same transaction), applies `planner`'s action for each and marks it
    /// processed, all in one transaction. One that fails transiently is left for later (`backoff` after its
    /// attempts); one whose payload cannot be read is processed as `failed`. Returns what each got.
    func processNotifications(
        limit: Int,
        planner: NotificationPlanner,
        backoff: Backoff
    ) async throws -> [ProcessedNotification]

    /// Revokes ledger rows whose transaction was recently remembered as revoked but whose row is not (a settle
    /// that read before the revocation committed), and catches up the units of Google partial refunds recorded
    /// meanwhile; returns how many rows changed.
    func sweepRevokedTransactions() async throws -> Int
}

/// One notification a pass handled: its store, type, and result (`nil`: deferred after a transient failure, or a
/// pending Google purchase no order matches put off until its lookup asks again).
package struct ProcessedNotification: Sendable, Equatable {
    /// `iap.store_notifications.store`.
    package var store: String
    /// `notification_type`.
    package var type: String
    /// The result written, or nil when it was left for a later pass.
    package var result: NotificationResult?
}
