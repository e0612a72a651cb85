/// What the dispatcher loop of `ReceiptDaemon` reacts to.
enum DaemonEvent: Sendable {
    /// Jobs may be due: a notification, a poll tick, or a reconnect.
    case wake
    /// A job task ended; `appleHealthy` says whether Apple answered (nil: no judgement, e.g. abandoned).
    case finished(jobID: Int64, appleHealthy: Bool?)
    /// Graceful shutdown began: stop claiming.
    case shutdown
    /// The shutdown grace period is over: abort what is still in flight.
    case graceExpired
}
