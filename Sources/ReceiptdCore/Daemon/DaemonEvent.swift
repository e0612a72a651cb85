/// What the dispatcher loop of `ReceiptDaemon` reacts to.
enum DaemonEvent: Sendable {
    /// Jobs may be due: a notification, a poll tick, or a reconnect.
    case wake
    /// A job task ended; `healthy` says whether `api`, the store API the job needed, answered (nil: no judgement,
    /// e.g. abandoned; `api` nil: the job needed none).
    case finished(jobID: Int64, api: StoreAPI?, healthy: Bool?)
    /// Graceful shutdown began: stop claiming.
    case shutdown
    /// The shutdown grace period is over: abort what is still in flight.
    case graceExpired
}
