import Testing

@testable import ReceiptdCore

/// The dispatcher's decisions, driven by an in-memory queue of due jobs in place of the database.
@Suite struct DispatcherStateMachineTests {
    typealias Action = DispatcherStateMachine.Action

    /// A claim that fails, as the database would when unreachable.
    struct ClaimError: Error, CustomStringConvertible {
        var description: String { "database unreachable" }
    }

    /// Performs the machine's actions as the daemon's driver does, with claims served from `due`.
    struct Harness {
        var machine: DispatcherStateMachine
        let start: ContinuousClock.Instant
        var now: ContinuousClock.Instant
        /// Jobs waiting to be claimed, in claim order.
        var due: [ClaimedJob] = []
        /// When set, every claim fails.
        var claimsFail = false
        /// Every claim performed.
        var claims: [DispatcherStateMachine.Claim] = []
        /// Every job started.
        var started: [DispatcherStateMachine.JobStart] = []

        init(concurrency: Int, batch: Int, listening: Bool = true, breaker: CircuitBreaker.Configuration = .init()) {
            start = .now
            now = start
            machine = DispatcherStateMachine(
                settings: .init(
                    concurrency: concurrency,
                    claimBatchSize: batch,
                    receipts: .verifyReceipt,
                    circuitBreaker: breaker,
                    listenWait: .seconds(5),
                    shutdownGrace: .seconds(25)
                ),
                now: start
            )
            if listening { machine.listenerReady() }
        }

        /// Adds due jobs: receipts (verifyReceipt) by default.
        mutating func enqueue(_ ids: ClosedRange<Int64>, kind: JobKind = .receipt) {
            due += ids.map { DispatcherStateMachineTests.job($0, kind: kind) }
        }

        /// Performs `actions` and what the claims' results lead to; returns all of them.
        @discardableResult
        mutating func perform(_ actions: [Action]) -> [Action] {
            var queue = actions[...]
            var performed: [Action] = []
            while let action = queue.popFirst() {
                performed.append(action)
                switch action {
                case .claim(let claim):
                    claims.append(claim)
                    if claimsFail {
                        queue += machine.claimFailed(ClaimError())
                        continue
                    }
                    var taken: [ClaimedJob] = []
                    due.removeAll { job in
                        guard taken.count < claim.limit, claim.filter.admits(kind: job.kind, input: job.input) else {
                            return false
                        }
                        taken.append(job)
                        return true
                    }
                    queue += machine.claimSucceeded(taken, for: claim, now: now)
                case .startJobs(let starts):
                    started += starts
                default:
                    break
                }
            }
            return performed
        }

        @discardableResult
        mutating func wake() -> [Action] {
            perform(machine.wake(now: now))
        }

        @discardableResult
        mutating func finish(_ id: Int64, healthy: Bool? = true) -> [Action] {
            let api = started.first { $0.job.id == id }?.api
            return perform(machine.jobFinished(id, api: api, healthy: healthy, now: now, unitRandom: 1))
        }

        /// The ids of the jobs started so far.
        var startedIDs: [Int64] { started.map(\.job.id) }
    }

    static func job(_ id: Int64, kind: JobKind) -> ClaimedJob {
        ClaimedJob(
            id: id,
            kind: kind,
            input: "input-\(id)",
            attempts: 1,
            malformedCount: 0,
            order: OrderSnapshot(orderID: "o\(id)", productID: "gems", quantity: 1, createdAtMilliseconds: 0),
            userID: "u1",
            createdAtMilliseconds: 0
        )
    }

    static func logs(_ actions: [Action]) -> [DispatcherStateMachine.LogEntry] {
        actions.compactMap { if case .log(let entry) = $0 { entry } else { nil } }
    }

    static func claims(_ actions: [Action]) -> [DispatcherStateMachine.Claim] {
        actions.compactMap { if case .claim(let claim) = $0 { claim } else { nil } }
    }

    /// Opens after 2 judged calls of which half failed, for exactly 2 s (`unitRandom` 1: no jitter).
    let breaker: CircuitBreaker.Configuration = {
        var configuration = CircuitBreaker.Configuration()
        configuration.window = 4
        configuration.minimumCalls = 2
        configuration.failureRatio = 0.5
        configuration.baseCooldown = .seconds(2)
        configuration.maximumCooldown = .seconds(8)
        return configuration
    }()

    @Test func fillsUpToConcurrencyInBatches() {
        var harness = Harness(concurrency: 10, batch: 4)
        harness.enqueue(1...20)
        let actions = harness.wake()
        #expect(harness.claims.map(\.limit) == [4, 4, 2])
        #expect(harness.startedIDs == Array(1...10))
        #expect(actions.last == .metric(.inFlight(10)), "a full daemon stops claiming")
        #expect(harness.machine.jobsInFlight.count == 10)
        harness.wake()
        #expect(harness.claims.count == 3, "no claim while every slot is used")
    }

    @Test func aShortClaimStopsClaimingUntilTheNextWake() {
        var harness = Harness(concurrency: 10, batch: 4)
        harness.enqueue(1...5)
        harness.wake()
        #expect(harness.claims.map(\.limit) == [4, 4], "the second claim found 1 of 4: nothing more is due")
        #expect(harness.startedIDs == Array(1...5))
        harness.enqueue(6...6)
        harness.wake()
        #expect(harness.claims.map(\.limit) == [4, 4, 4])
        #expect(harness.startedIDs == Array(1...6))
    }

    @Test func noClaimBeforeListenUnlessFivePollIntervalsPassed() {
        var harness = Harness(concurrency: 10, batch: 4, listening: false)
        harness.enqueue(1...2)
        harness.now = harness.start + .seconds(1)
        harness.wake()
        harness.now = harness.start + .seconds(5)
        harness.wake()
        #expect(harness.claims.isEmpty, "claims wait for LISTEN")
        harness.now = harness.start + .seconds(5) + .milliseconds(1)
        harness.wake()
        #expect(harness.startedIDs == [1, 2], "after 5 poll intervals polling alone keeps orders moving")

        var listening = Harness(concurrency: 10, batch: 4, listening: false)
        listening.enqueue(1...2)
        listening.machine.listenerReady()
        listening.wake()
        #expect(listening.startedIDs == [1, 2])
    }

    @Test func finishesThatArriveTogetherLeadToOneClaim() {
        var harness = Harness(concurrency: 3, batch: 10)
        harness.enqueue(1...10)
        harness.wake()
        #expect(harness.claims.map(\.limit) == [3])
        var actions: [Action] = []
        for id: Int64 in 1...3 { actions += harness.finish(id) }
        #expect(actions.filter { $0 == .requestWake }.count == 1)
        #expect(Self.claims(actions).isEmpty, "a finish does not claim by itself")
        harness.wake()
        #expect(harness.claims.map(\.limit) == [3, 3], "one claim for the three freed slots")
        #expect(harness.startedIDs == Array(1...6))
        let later = harness.finish(4)
        #expect(later.contains(.requestWake), "the wake was consumed: the next finish asks again")
    }

    @Test func aFailingClaimIsReportedOnceUntilAClaimWorksAgain() {
        var harness = Harness(concurrency: 10, batch: 4)
        harness.enqueue(1...2)
        harness.claimsFail = true
        var actions: [Action] = []
        for _ in 0..<3 { actions += harness.wake() }
        #expect(harness.claims.count == 3, "every wake tries again, one claim each")
        #expect(Self.logs(actions) == [.claimFailed(error: "database unreachable")])
        harness.claimsFail = false
        let recovered = harness.wake()
        #expect(Self.logs(recovered) == [.claimingAgain])
        #expect(harness.startedIDs == [1, 2])
        harness.claimsFail = true
        #expect(Self.logs(harness.wake()) == [.claimFailed(error: "database unreachable")])
    }

    @Test func shutdownWithNothingInFlightStopsAtOnce() {
        var harness = Harness(concurrency: 10, batch: 4)
        #expect(harness.machine.shutdown() == [.log(.shuttingDown(inFlight: 0)), .stop])
        harness.enqueue(1...2)
        harness.wake()
        #expect(harness.claims.isEmpty, "no claims once draining")
    }

    @Test func shutdownDrainsThenStopsWhenTheLastJobFinishes() {
        var harness = Harness(concurrency: 10, batch: 4)
        harness.enqueue(1...2)
        harness.wake()
        let shutdown = harness.machine.shutdown()
        #expect(shutdown == [.log(.shuttingDown(inFlight: 2)), .scheduleGraceTimer(.seconds(25))])
        #expect(harness.machine.shutdown().isEmpty, "a second signal changes nothing")
        harness.enqueue(3...4)
        harness.wake()
        #expect(harness.claims.count == 1, "no claims once draining")
        let first = harness.finish(1)
        #expect(!first.contains(.stop) && !first.contains(.requestWake))
        #expect(harness.finish(2).last == .stop)
    }

    @Test func graceExpiryAbortsAll() {
        var harness = Harness(concurrency: 10, batch: 4)
        #expect(harness.machine.graceExpired().isEmpty, "no grace before shutdown")
        harness.enqueue(1...2)
        harness.wake()
        _ = harness.machine.shutdown()
        #expect(harness.machine.graceExpired() == [.abortAll])
        harness.finish(1, healthy: nil)
        #expect(harness.finish(2, healthy: nil).last == .stop, "the aborted jobs finish, then the daemon stops")
    }

    @Test func aFailingAPIIsPausedThenProbedWithOneJobAndResumed() {
        var harness = Harness(concurrency: 10, batch: 10, breaker: breaker)
        harness.enqueue(1...2)
        harness.wake()
        harness.finish(1, healthy: false)
        let opened = harness.finish(2, healthy: false)
        #expect(Self.logs(opened) == [.apiFailing(.verifyReceipt, resumeIn: .seconds(2))])
        #expect(opened.contains(.metric(.paused(.verifyReceipt, true))))
        #expect(opened.contains(.publishPaused([.verifyReceipt])))
        #expect(harness.machine.pausedAPIs == [.verifyReceipt])

        // During the cool-down, claims skip receipts but take the other jobs.
        harness.enqueue(3...5)
        harness.enqueue(6...7, kind: .googlePurchase)
        harness.now = harness.start + .seconds(1)
        harness.wake()
        #expect(harness.claims.last?.filter == ClaimFilter.avoiding([.verifyReceipt], receipts: .verifyReceipt))
        #expect(harness.startedIDs == [1, 2, 6, 7])

        // After it, exactly one receipt goes as the probe, however often the dispatcher wakes.
        harness.now = harness.start + .seconds(2)
        let probing = harness.wake()
        #expect(
            Self.claims(probing).first
                == DispatcherStateMachine.Claim(
                    limit: 1,
                    filter: .needing(.verifyReceipt, receipts: .verifyReceipt),
                    probe: .verifyReceipt
                )
        )
        harness.wake()
        harness.wake()
        #expect(harness.startedIDs == [1, 2, 6, 7, 3])
        #expect(harness.claims.filter { $0.probe != nil }.count == 1)

        // A healthy probe closes the breaker: the API is published as resumed and its jobs are claimed again.
        let resumed = harness.finish(3, healthy: true)
        #expect(Self.logs(resumed) == [.apiAnswering(.verifyReceipt)])
        #expect(resumed.contains(.metric(.paused(.verifyReceipt, false))))
        #expect(resumed.contains(.publishPaused([])))
        harness.wake()
        #expect(harness.startedIDs == [1, 2, 6, 7, 3, 4, 5])
        #expect(harness.claims.last?.filter == ClaimFilter.avoiding([], receipts: .verifyReceipt))
    }

    @Test func aFailedProbeReopensWithoutPublishingAgain() {
        var harness = Harness(concurrency: 10, batch: 10, breaker: breaker)
        harness.enqueue(1...2)
        harness.wake()
        harness.finish(1, healthy: false)
        harness.finish(2, healthy: false)
        harness.enqueue(3...3)
        harness.now = harness.start + .seconds(2)
        harness.wake()
        #expect(harness.claims.contains { $0.probe == .verifyReceipt } && harness.startedIDs.last == 3)
        harness.now = harness.start + .seconds(3)
        let reopened = harness.finish(3, healthy: false)
        #expect(Self.logs(reopened) == [.apiFailing(.verifyReceipt, resumeIn: .seconds(4))])
        #expect(!reopened.contains { if case .publishPaused = $0 { true } else { false } }, "still paused")
        #expect(harness.machine.pausedAPIs == [.verifyReceipt])
    }

    @Test func anInconclusiveFinishDoesNotCount() {
        var harness = Harness(concurrency: 10, batch: 10, breaker: breaker)
        harness.enqueue(1...6)
        harness.wake()
        var actions: [Action] = []
        for id: Int64 in 1...4 { actions += harness.finish(id, healthy: nil) }
        actions += harness.finish(5, healthy: false)
        #expect(Self.logs(actions).isEmpty, "one judged failure is below the breaker's minimum")
        #expect(harness.machine.pausedAPIs.isEmpty)

        // An inconclusive probe neither closes the breaker nor stops the next probe.
        harness.finish(6, healthy: false)
        harness.enqueue(7...8)
        harness.now = harness.start + .seconds(2)
        harness.wake()
        let inconclusive = harness.finish(7, healthy: nil)
        #expect(Self.logs(inconclusive).isEmpty)
        #expect(harness.machine.pausedAPIs == [.verifyReceipt])
        harness.wake()
        #expect(harness.claims.filter { $0.probe != nil }.count == 2, "a new probe after the inconclusive one")
        #expect(harness.startedIDs.suffix(2) == [7, 8])
    }

    @Test func aWakeWhileAClaimIsOutClaimsAgainAfterIt() {
        var harness = Harness(concurrency: 10, batch: 4)
        let first = harness.machine.wake(now: harness.now)
        guard case .claim(let claim)? = first.last else {
            Issue.record("expected a claim")
            return
        }
        #expect(harness.machine.wake(now: harness.now).isEmpty, "one claim out at a time")
        let after = harness.machine.claimSucceeded([], for: claim, now: harness.now)
        #expect(Self.claims(after) == [claim], "the wake that came meanwhile claims again")
    }
}
