/// When to ask Google again about a pending purchase (cash, bank transfer: it can take days), by how long the
/// job has waited: every minute at first, then every 5 and 15 minutes, then hourly, until Google settles it
/// (within the three days it allows). Waiting uses up no attempt.
enum PendingSchedule {
    /// Seconds until the next question after `waited` seconds.
    static func delay(afterWaiting waited: Double) -> Double {
        switch waited {
        case ..<600: 60
        case ..<3600: 300
        case ..<21_600: 900
        default: 3600
        }
    }
}
