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
        private var breaker: CircuitBreaker
        private let startedAt = ContinuousClock.now

        init(daemon: ReceiptDaemon, events: AsyncStream<DaemonEvent>.Continuation, wake: WakeSignal, inFlight: InFlightJobs) {
            self.daemon = daemon
            self.events = events
            self.wake = wake
            self.inFlight = inFlight
            self.breaker = CircuitBreaker(configuration: daemon.settings.circuitBreaker)
        }

        mutating func handle(_ event: DaemonEvent, group: inout DiscardingTaskGroup) async -> Next {
            switch event {
            case .wake:
                wake.consumed()
                await fill(&group)
            case .finished(let jobID, let appleHealthy):
                inFlight.remove(jobID)
                daemon.metrics.setInFlight(inFlight.count)
                if let appleHealthy { noteAppleHealth(appleHealthy) } else { breaker.inconclusive() }
                if draining { return (inFlight.count == 0) ? .stop : .proceed }
                // Not a claim of its own: finishes that arrive together free their slots for one claim.
                wake.wake()
            case .shutdown:
                guard !draining else { return .proceed }
                draining = true
                daemon.log.notice("shutting down: no new claims", metadata: ["in_flight": "\(inFlight.count)"])
                if (inFlight.count == 0) { return .stop }
                let grace = daemon.settings.shutdownGrace
                group.addTask { [events] in
                    try? await Task.sleep(for: .seconds(grace))
                    events.yield(.graceExpired)
                }
            case .graceExpired:
                inFlight.abortAll()
            }
            return .proceed
        }

        private mutating func noteAppleHealth(_ healthy: Bool) {
            guard breaker.record(success: healthy, now: .now, unitRandom: Double.random(in: 0...1)) else { return }
            switch breaker.state {
            case .open(let until):
                daemon.log.warning("Apple is failing: pausing claims", metadata: ["resume_in": "\(until - .now)"])
            case .closed:
                daemon.log.notice("Apple is answering again: claiming resumes")
            case .halfOpen:
                break
            }
        }

        /// Claims jobs until every slot is used or nothing more is due.
        ///
        /// Not before `LISTEN` is up (a replaced receipt's cancel notification would be missed), unless the
        /// listener has not managed that within a few polls: then polling alone keeps orders moving.
        private mutating func fill(_ group: inout DiscardingTaskGroup) async {
            guard daemon.isListening || ContinuousClock.now - startedAt > .seconds(5 * daemon.settings.pollInterval) else { return }
            while !draining {
                let free = daemon.settings.concurrency - inFlight.count
                guard free > 0 else { return }
                let wanted = min(free, daemon.settings.claimBatchSize, breaker.permits(now: .now))
                guard wanted > 0 else { return }
                let jobs: [ClaimedJob]
                do {
                    jobs = try await daemon.claim(limit: wanted)
                    if claimFailing { daemon.log.notice("claiming again") }
                    claimFailing = false
                } catch {
                    if !claimFailing { daemon.log.error("claim failed; will retry on the next poll", metadata: [LogKey.error: "\(error)"]) }
                    claimFailing = true
                    return
                }
                breaker.started(jobs.count)
                daemon.metrics.jobsClaimed(jobs.count)
                for job in jobs {
                    let abort = inFlight.add(job.id)
                    group.addTask { [daemon, events] in
                        let appleHealthy = await daemon.process(job, abort: abort)
                        events.yield(.finished(jobID: job.id, appleHealthy: appleHealthy))
                    }
                }
                daemon.metrics.setInFlight(inFlight.count)
                if jobs.count < wanted { return }
            }
        }
    }
}
