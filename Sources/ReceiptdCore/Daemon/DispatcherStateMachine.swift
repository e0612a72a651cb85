/// The dispatcher's decisions, as a pure state machine: each event goes in with the time it happened, the
/// actions the driver must perform come out (`ReceiptDaemon.Dispatcher` is that driver).
///
/// No I/O, no clock, no randomness and no awaiting here, so every rule is unit-tested in isolation: fill the
/// free slots in claim batches, one claim out at a time; no claims before `LISTEN` is up (unless it takes too
/// long); a store API whose breaker opens is skipped by claims and published as paused, then probed with one job;
/// on shutdown no new claims, a grace period for the jobs in flight, then abort them.
struct DispatcherStateMachine: Sendable {
    /// A fill under way: claims one after another until the slots are used or nothing more is due.
    private struct Fill: Sendable {
        /// The paused APIs already probed in this fill: one probe each.
        var probed: Set<StoreAPI> = []
        /// A wake came while the claim was out: jobs may be due that the claim did not see.
        var wokenAgain = false
    }

    private let settings: Settings
    private let startedAt: ContinuousClock.Instant
    /// Whether `LISTEN` is up: only then can no replaced receipt's cancel notification be missed.
    private var listening = false
    /// The jobs running now.
    private var inFlight: Set<Int64> = []
    /// Set by shutdown: no new claims.
    private var draining = false
    /// The last claim failed (logged once until a claim works again).
    private var claimFailing = false
    /// A `.requestWake` went out and its `.wake` has not come yet: more finishes need no wake of their own.
    private var wakeRequested = false
    /// One breaker per store API: a failing API pauses only the jobs that need it.
    private var breakers: [StoreAPI: CircuitBreaker]
    /// The APIs whose jobs claims skip (breaker open or half-open), as last published.
    private var paused: Set<StoreAPI> = []
    /// Non-nil exactly while a claim is out.
    private var fill: Fill?

    /// Creates the machine of a daemon that started at `now`: nothing in flight, every API healthy.
    init(settings: Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        self.startedAt = now
        self.breakers = Dictionary(
            uniqueKeysWithValues: StoreAPI.allCases.map { ($0, CircuitBreaker(configuration: settings.circuitBreaker)) }
        )
    }

    /// The metrics to set at start: no API paused.
    var initialMetrics: [Metric] { StoreAPI.allCases.map { .paused($0, false) } }

    /// The ids of the jobs in flight.
    var jobsInFlight: Set<Int64> { inFlight }

    /// The APIs whose jobs claims skip now.
    var pausedAPIs: Set<StoreAPI> { paused }

    /// `LISTEN` is up: claims need not wait for it any longer.
    mutating func listenerReady() {
        listening = true
    }

    /// Jobs may be due (a notification, a poll tick, a finished job's freed slot): claims until every slot is used
    /// or nothing more is due.
    ///
    /// Not before `LISTEN` is up (a replaced receipt's cancel notification would be missed), unless the listener has
    /// not managed that within `listenWait`: then polling alone keeps orders moving.
    mutating func wake(now: ContinuousClock.Instant) -> [Action] {
        wakeRequested = false
        if fill != nil {
            fill?.wokenAgain = true
            return []
        }
        return startFill(now: now)
    }

    /// The claim `claim` returned `jobs`: start them, and claim again while slots are free and the claim was full.
    mutating func claimSucceeded(_ jobs: [ClaimedJob], for claim: Claim, now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if claimFailing { actions.append(.log(.claimingAgain)) }
        claimFailing = false
        actions.append(.metric(.claimed(jobs.count)))
        if let api = claim.probe { breakers[api]?.started(jobs.count) }
        actions += start(jobs)
        let current = fill ?? Fill()
        // A short batch means nothing more is due now; a probe's result says nothing about the other jobs.
        if claim.probe == nil, jobs.count < claim.limit { return actions + endFill(current, now: now) }
        return actions + nextClaim(current, now: now)
    }

    /// The claim failed: logged once until a claim works again; the next wake tries again.
    mutating func claimFailed(_ error: any Error) -> [Action] {
        var actions: [Action] = []
        if !claimFailing { actions.append(.log(.claimFailed(error: "\(error)"))) }
        claimFailing = true
        fill = nil
        if draining, inFlight.isEmpty { actions.append(.stop) }
        return actions
    }

    /// A job ended; `healthy` says whether `api`, the store API it needed, answered (`nil`: no judgement, e.g.
    /// abandoned; `api` nil: it needed none). `unitRandom` in [0, 1] jitters a breaker's cool-down.
    mutating func jobFinished(
        _ jobID: Int64,
        api: StoreAPI?,
        healthy: Bool?,
        now: ContinuousClock.Instant,
        unitRandom: Double
    ) -> [Action] {
        inFlight.remove(jobID)
        var actions: [Action] = [.metric(.inFlight(inFlight.count))]
        if let api {
            if let healthy {
                actions += noteHealth(of: api, healthy, now: now, unitRandom: unitRandom)
            } else {
                breakers[api]?.inconclusive()
            }
        }
        if draining { return (inFlight.isEmpty && fill == nil) ? actions + [.stop] : actions }
        // Not a claim of its own: finishes that arrive together free their slots for one claim.
        if !wakeRequested {
            wakeRequested = true
            actions.append(.requestWake)
        }
        return actions
    }

    /// Graceful shutdown began: no new claims; stop now if nothing runs, else give the jobs in flight the grace.
    mutating func shutdown() -> [Action] {
        guard !draining else { return [] }
        draining = true
        let actions: [Action] = [.log(.shuttingDown(inFlight: inFlight.count))]
        if inFlight.isEmpty, fill == nil { return actions + [.stop] }
        return actions + [.scheduleGraceTimer(settings.shutdownGrace)]
    }

    /// The shutdown grace is over: abort what still runs (each abort then finishes its job).
    func graceExpired() -> [Action] {
        draining ? [.abortAll] : []
    }

    /// Begins a fill, unless draining or still waiting for `LISTEN`.
    private mutating func startFill(now: ContinuousClock.Instant) -> [Action] {
        guard !draining, listening || now - startedAt > settings.listenWait else { return [] }
        return nextClaim(Fill(), now: now)
    }

    /// The next claim of `current`: first one probe per API whose cool-down has passed, then a batch of jobs that
    /// need no paused API.
    private mutating func nextClaim(_ current: Fill, now: ContinuousClock.Instant) -> [Action] {
        let free = settings.concurrency - inFlight.count
        guard !draining, free > 0 else { return endFill(current, now: now) }
        var current = current
        var closed = Set<StoreAPI>()
        for api in StoreAPI.allCases {
            let permitted = breakers[api]?.permits(now: now) ?? 0
            if permitted == .max {
                closed.insert(api)
            } else if permitted > 0, current.probed.insert(api).inserted {
                fill = current
                let probe = ClaimFilter.needing(api, receipts: settings.receipts)
                return [.claim(Claim(limit: 1, filter: probe, probe: api))]
            }
        }
        fill = current
        let filter = ClaimFilter.avoiding(Set(StoreAPI.allCases).subtracting(closed), receipts: settings.receipts)
        return [.claim(Claim(limit: min(free, settings.claimBatchSize), filter: filter, probe: nil))]
    }

    /// The fill is over; a wake that came meanwhile starts the next one.
    private mutating func endFill(_ current: Fill, now: ContinuousClock.Instant) -> [Action] {
        fill = nil
        if draining { return inFlight.isEmpty ? [.stop] : [] }
        return current.wokenAgain ? startFill(now: now) : []
    }

    /// Runs claimed jobs, each reporting its API's health when it ends.
    private mutating func start(_ jobs: [ClaimedJob]) -> [Action] {
        guard !jobs.isEmpty else { return [] }
        inFlight.formUnion(jobs.map(\.id))
        let starts = jobs.map { job in
            JobStart(job: job, api: StoreAPI.needed(by: job.kind, input: job.input, receipts: settings.receipts))
        }
        return [.startJobs(starts), .metric(.inFlight(inFlight.count))]
    }

    /// Feeds a judged call to `api`'s breaker; when it opens or closes, the API is paused or resumed.
    private mutating func noteHealth(
        of api: StoreAPI,
        _ healthy: Bool,
        now: ContinuousClock.Instant,
        unitRandom: Double
    ) -> [Action] {
        guard breakers[api]?.record(success: healthy, now: now, unitRandom: unitRandom) == true,
            let state = breakers[api]?.state
        else { return [] }
        let before = paused
        var actions: [Action] = []
        switch state {
        case .open(let until):
            actions.append(.log(.apiFailing(api, resumeIn: until - now)))
            paused.insert(api)
        case .closed:
            actions.append(.log(.apiAnswering(api)))
            paused.remove(api)
        case .halfOpen:
            return []
        }
        guard paused != before else { return actions }
        return actions + [.metric(.paused(api, paused.contains(api))), .publishPaused(paused.sorted())]
    }
}
