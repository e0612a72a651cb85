extension DispatcherStateMachine {
    /// Something to log; the driver words it.
    enum LogEntry: Sendable, Equatable {
        /// Shutdown began with this many jobs in flight.
        case shuttingDown(inFlight: Int)
        /// The API's breaker opened: its jobs are skipped for `resumeIn`.
        case apiFailing(StoreAPI, resumeIn: Duration)
        /// The API's probe succeeded: its jobs are claimed again.
        case apiAnswering(StoreAPI)
        /// A claim failed (described); reported once until claiming works again.
        case claimFailed(error: String)
        /// A claim worked after failures.
        case claimingAgain
    }
}
