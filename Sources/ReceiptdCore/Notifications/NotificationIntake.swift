/// Where verified store notifications are recorded (the intake's push handler and the history catch-up), part
/// of the queue seam: `PostgresJobQueue` implements it.
package protocol NotificationIntake: Sendable {
    /// Records `notification` and commits; true when it is new, false when the store's id was recorded before
    /// (nothing changes then). Throws when the database cannot take it.
    func record(_ notification: StoreNotification) async throws -> Bool
}
