import Logging

extension ReceiptDaemon {
    /// The dispatcher loop's state: jobs in flight, and whether the daemon is draining for shutdown.
    struct Dispatcher {
        enum Next { case proceed, stop }

        let daemon: ReceiptDaemon
        let events: AsyncStream<DaemonEvent>.Continuation
        let wake: WakeSignal
        let inFlight: InFlightJobs
        private var draining = false
        private var claimFailing = false
        /// One breaker per store API: a failing API pauses only the jobs that need it.
        private var breakers: [StoreAPI: CircuitBreaker]
        /// The APIs whose jobs claims skip (breaker open or half-open), as last published.
        private var paused: Set<StoreAPI> = []
        private let startedAt = ContinuousClock.now

        init(
            daemon: ReceiptDaemon,
            events: AsyncStream<DaemonEvent>.Continuation,
            wake: WakeSignal,
            inFlight: InFlightJobs
        ) {
            self.daemon = daemon
            self.events = events
            self.wake = wake
            self.inFlight = inFlight
            self.breakers = Dictionary(
                uniqueKeysWithValues: StoreAPI.allCases.map {
                    ($0, CircuitBreaker(configuration: daemon.settings.circuitBreaker))
                }
            )
            for api in StoreAPI.allCases { daemon.metrics.storeAPIPaused(api, false) }
        }

        mutating func handle(_ event: DaemonEvent, group: inout DiscardingTaskGroup) async -> Next {
            switch event {
            case .wake:
                wake.consumed()
                await fill(&group)
            case .finished(let jobID, let api, let healthy):
                inFlight.remove(jobID)
                daemon.metrics.setInFlight(inFlight.count)
                if let api {
                    if let healthy {
                        noteHealth(of: api, healthy, group: &group)
                    } else {
                        breakers[api]?.inconclusive()
                    }
                }
                if draining { return (inFlight.count == 0) ? .stop : .proceed }
                // Not a claim of its own: finishes that arrive together free their slots for one claim.
                wake.wake()
            case .shutdown:
                guard !draining else { return .proceed }
                draining = true
                daemon.log.notice("shutting down: no new claims", metadata: ["in_flight": "\(inFlight.count)"])
                if inFlight.count == 0 { return .stop }
                let grace = daemon.settings.shutdownGrace
                group.addTask { [events] in
                    try? await Task.sleep(for: grace)
                    events.yield(.graceExpired)
                }
            case .graceExpired:
                inFlight.abortAll()
            }
            return .proceed
        }

        private mutating func noteHealth(of api: StoreAPI, _ healthy: Bool, group: inout DiscardingTaskGroup) {
            guard breakers[api]?.record(success: healthy, now: .now, unitRandom: Double.random(in: 0...1)) == true,
                let state = breakers[api]?.state
            else { return }
            let before = paused
            let metadata: Logger.Metadata = ["api": "\(api.rawValue)", "store": "\(api.store.rawValue)"]
            switch state {
            case .open(let until):
                daemon.log.warning(
                    "\(api.rawValue) is failing: pausing claims of the jobs that need it",
                    metadata: metadata.merging(["resume_in": "\(until - .now)"]) { $1 }
                )
                paused.insert(api)
            case .closed:
                daemon.log.notice(
                    "\(api.rawValue) is answering again: claiming resumes for the jobs that need it",
                    metadata: metadata
                )
                paused.remove(api)
            case .halfOpen:
                return
            }
            guard paused != before else { return }
            daemon.metrics.storeAPIPaused(api, paused.contains(api))
            let publisher = daemon.pausedAPIs
            if publisher.note(paused.sorted()) { group.addTask { await publisher.drain() } }
        }

        /// Claims jobs until every slot is used or nothing more is due.
        ///
        /// Not before `LISTEN` is up (a replaced receipt's cancel notification would be missed), unless the
        /// listener has not managed that within a few polls: then polling alone keeps orders moving.
        /// A paused API's jobs are skipped; once its cool-down has passed, one of them goes as its probe.
        private mutating func fill(_ group: inout DiscardingTaskGroup) async {
            guard daemon.isListening || ContinuousClock.now - startedAt > daemon.settings.pollInterval * 5
            else { return }
            var probed = Set<StoreAPI>()
            while !draining {
                var free = daemon.settings.concurrency - inFlight.count
                guard free > 0 else { return }
                var closed = Set<StoreAPI>()
                for api in StoreAPI.allCases {
                    let permitted = breakers[api]?.permits(now: .now) ?? 0
                    if permitted == .max {
                        closed.insert(api)
                    } else if permitted > 0, free > 0, probed.insert(api).inserted {
                        guard let probe = await claim(1, ClaimFilter.needing(api, receipts: daemon.receipts)) else {
                            return
                        }
                        breakers[api]?.started(probe.count)
                        start(probe, &group)
                        free -= probe.count
                    }
                }
                let wanted = min(free, daemon.settings.claimBatchSize)
                guard wanted > 0 else { return }
                let filter = ClaimFilter.avoiding(Set(StoreAPI.allCases).subtracting(closed), receipts: daemon.receipts)
                guard let jobs = await claim(wanted, filter) else { return }
                start(jobs, &group)
                if jobs.count < wanted { return }
            }
        }

        /// One claim statement; `nil` when it failed (logged once until claiming works again).
        private mutating func claim(_ limit: Int, _ filter: ClaimFilter) async -> [ClaimedJob]? {
            do {
                let jobs = try await daemon.claim(limit: limit, filter: filter)
                if claimFailing { daemon.log.notice("claiming again") }
                claimFailing = false
                daemon.metrics.jobsClaimed(jobs.count)
                return jobs
            } catch {
                if !claimFailing {
                    daemon.log.error("claim failed; will retry on the next poll", metadata: [LogKey.error: "\(error)"])
                }
                claimFailing = true
                return nil
            }
        }

        /// Runs claimed jobs, each reporting its API's health when it ends.
        private func start(_ jobs: [ClaimedJob], _ group: inout DiscardingTaskGroup) {
            guard !jobs.isEmpty else { return }
            for job in jobs {
                let abort = inFlight.add(job.id)
                let api = StoreAPI.needed(by: job.kind, input: job.input, receipts: daemon.receipts)
                group.addTask { [daemon, events] in
                    let healthy = await daemon.process(job, api: api, abort: abort)
                    events.yield(.finished(jobID: job.id, api: api, healthy: healthy))
                }
            }
            daemon.metrics.setInFlight(inFlight.count)
        }
    }
}
