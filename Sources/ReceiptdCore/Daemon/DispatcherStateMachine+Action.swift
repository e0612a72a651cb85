extension DispatcherStateMachine {
    /// What the driver does for the machine, in the order given. A `.claim` is always the last action of a list:
    /// the driver awaits it and feeds its result back (`claimSucceeded` or `claimFailed`).
    enum Action: Sendable, Equatable {
        /// Claim due jobs; one claim is out at a time.
        case claim(Claim)
        /// Run these claimed jobs, each reporting `jobFinished` when it ends.
        case startJobs([JobStart])
        /// Queue a `.wake` (coalesced with the other reasons to look for work).
        case requestWake
        /// Publish the APIs whose jobs claims now skip, for `receiptd status`.
        case publishPaused([StoreAPI])
        /// Feed `graceExpired` after this long.
        case scheduleGraceTimer(Duration)
        /// Abort every job in flight.
        case abortAll
        /// Log this.
        case log(LogEntry)
        /// Update this metric.
        case metric(Metric)
        /// The dispatcher is done: stop reading events.
        case stop
    }

    /// A claimed job to run, with the store API it needs (`nil`: none, e.g. a signed transaction).
    struct JobStart: Sendable, Equatable {
        var job: ClaimedJob
        var api: StoreAPI?
    }

    /// A metric update.
    enum Metric: Sendable, Equatable {
        /// Jobs in flight now.
        case inFlight(Int)
        /// One claim took this many jobs.
        case claimed(Int)
        /// Whether claims skip this API's jobs.
        case paused(StoreAPI, Bool)
    }
}
