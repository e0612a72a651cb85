import Logging

extension ReceiptDaemon {
    /// Performs what the dispatcher's state machine (`DispatcherStateMachine`) decides: claims, starts jobs in the
    /// daemon's task group, logs, sets metrics and publishes the paused store APIs.
    struct Dispatcher {
        /// Whether the daemon's event loop goes on.
        enum Next { case proceed, stop }

        let daemon: ReceiptDaemon
        let events: AsyncStream<DaemonEvent>.Continuation
        let wake: WakeSignal
        /// The abort signals of the jobs in flight, shared with the listener (cancels) and the ticker (heartbeats).
        let inFlight: InFlightJobs
        /// What decides; this driver only performs.
        private var machine: DispatcherStateMachine

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
            self.machine = DispatcherStateMachine(
                settings: .init(daemon.settings, receipts: daemon.receipts),
                now: .now
            )
            for update in machine.initialMetrics { record(update) }
        }

        /// Feeds one event to the machine and performs what it decides, claims included.
        mutating func handle(_ event: DaemonEvent, group: inout DiscardingTaskGroup) async -> Next {
            let actions: [DispatcherStateMachine.Action]
            switch event {
            case .wake:
                wake.consumed()
                if daemon.isListening { machine.listenerReady() }
                actions = machine.wake(now: .now)
            case .finished(let jobID, let api, let healthy):
                inFlight.remove(jobID)
                actions = machine.jobFinished(
                    jobID,
                    api: api,
                    healthy: healthy,
                    now: .now,
                    unitRandom: .random(in: 0...1)
                )
            case .shutdown:
                actions = machine.shutdown()
            case .graceExpired:
                actions = machine.graceExpired()
            }
            return await perform(actions, group: &group)
        }

        /// Performs `actions` in order; a claim is awaited here, outside the machine, and its result fed back.
        private mutating func perform(
            _ actions: [DispatcherStateMachine.Action],
            group: inout DiscardingTaskGroup
        ) async -> Next {
            var queue = actions[...]
            while let action = queue.popFirst() {
                switch action {
                case .claim(let claim):
                    do {
                        let jobs = try await daemon.claim(limit: claim.limit, filter: claim.filter)
                        queue += machine.claimSucceeded(jobs, for: claim, now: .now)
                    } catch {
                        queue += machine.claimFailed(error)
                    }
                case .startJobs(let starts):
                    for start in starts {
                        let abort = inFlight.add(start.job.id)
                        group.addTask { [daemon, events] in
                            let healthy = await daemon.process(start.job, api: start.api, abort: abort)
                            events.yield(.finished(jobID: start.job.id, api: start.api, healthy: healthy))
                        }
                    }
                case .requestWake:
                    wake.wake()
                case .publishPaused(let apis):
                    let publisher = daemon.pausedAPIs
                    if publisher.note(apis) { group.addTask { await publisher.drain() } }
                case .scheduleGraceTimer(let grace):
                    group.addTask { [events] in
                        try? await Task.sleep(for: grace)
                        events.yield(.graceExpired)
                    }
                case .abortAll:
                    inFlight.abortAll()
                case .log(let entry):
                    log(entry)
                case .metric(let update):
                    record(update)
                case .stop:
                    return .stop
                }
            }
            return .proceed
        }

        /// Logs an entry with today's wording, levels and metadata.
        private func log(_ entry: DispatcherStateMachine.LogEntry) {
            switch entry {
            case .shuttingDown(let count):
                daemon.log.notice("shutting down: no new claims", metadata: ["in_flight": "\(count)"])
            case .apiFailing(let api, let resumeIn):
                daemon.log.warning(
                    "\(api.rawValue) is failing: pausing claims of the jobs that need it",
                    metadata: ["api": "\(api.rawValue)", "store": "\(api.store.rawValue)", "resume_in": "\(resumeIn)"]
                )
            case .apiAnswering(let api):
                daemon.log.notice(
                    "\(api.rawValue) is answering again: claiming resumes for the jobs that need it",
                    metadata: ["api": "\(api.rawValue)", "store": "\(api.store.rawValue)"]
                )
            case .claimFailed(let error):
                daemon.log.error("claim failed; will retry on the next poll", metadata: [LogKey.error: "\(error)"])
            case .claimingAgain:
                daemon.log.notice("claiming again")
            }
        }

        /// Sets a metric.
        private func record(_ update: DispatcherStateMachine.Metric) {
            switch update {
            case .inFlight(let count): daemon.metrics.setInFlight(count)
            case .claimed(let count): daemon.metrics.jobsClaimed(count)
            case .paused(let api, let paused): daemon.metrics.storeAPIPaused(api, paused)
            }
        }
    }
}

extension DispatcherStateMachine.Settings {
    /// The dispatcher's share of the daemon's configuration.
    init(_ configuration: ReceiptDaemon.Configuration, receipts: ReceiptVerifierChoice) {
        self.init(
            concurrency: configuration.concurrency,
            claimBatchSize: configuration.claimBatchSize,
            receipts: receipts,
            circuitBreaker: configuration.circuitBreaker,
            listenWait: configuration.pollInterval * 5,
            shutdownGrace: configuration.shutdownGrace
        )
    }
}
