/// When to ask Google again about a pending purchase (cash, bank transfer: it can take days), by how long the
/// job has waited: every minute at first, then every 5 and 15 minutes, then hourly, until Google settles it
/// (within the three days it allows). Waiting uses up no attempt.
enum PendingSchedule {
    /// The wait until the next question after `waited`.
    static func delay(afterWaiting waited: Duration) -> Duration {
        switch waited {
        case ..<Duration.seconds(600): .seconds(60)
        case ..<Duration.seconds(3600): .seconds(300)
        case ..<Duration.seconds(21_600): .seconds(900)
        default: .seconds(3600)
        }
    }
}
