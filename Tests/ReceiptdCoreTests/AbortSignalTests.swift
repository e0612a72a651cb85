import Synchronization
import Testing

@testable import ReceiptdCore

/// The abort signal cancels the job's store request and makes the runner treat it as abandoned.
@Suite struct AbortSignalTests {
    /// What the work saw, read after it ended.
    private final class Seen: Sendable {
        let outcome = Mutex<String?>(nil)
    }

    /// Waits until cancelled (or a minute), then says whether it was.
    private static func untilCancelled() async -> String {
        try? await Task.sleep(for: .seconds(60))
        return Task.isCancelled ? "cancelled" : "slept"
    }

    @Test func anAnswerThatComesFirstIsKeptAndALaterFireDoesNothing() async {
        let signal = AbortSignal()
        let value = await signal.run { "answer" }
        #expect(value == "answer")
        signal.fire()
        signal.fire()
    }

    @Test func firingCancelsTheWorkUnderWayAndItsAnswerIsDropped() async {
        let signal = AbortSignal()
        let seen = Seen()
        let started = ContinuousClock.now
        async let result = signal.run {
            let outcome = await Self.untilCancelled()
            seen.outcome.withLock { $0 = outcome }
            return outcome
        }
        try? await Task.sleep(for: .milliseconds(50))
        signal.fire()
        #expect(await result == nil)
        #expect(seen.outcome.withLock { $0 } == "cancelled", "the work itself saw the cancellation")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aSignalFiredBeforeTheWorkStartsCancelsItAtOnce() async {
        let signal = AbortSignal()
        signal.fire()
        let seen = Seen()
        let value = await signal.run {
            let outcome = await Self.untilCancelled()
            seen.outcome.withLock { $0 = outcome }
            return outcome
        }
        #expect(value == nil)
        #expect(seen.outcome.withLock { $0 } == "cancelled")
    }

    @Test func cancellingTheJobTaskAbandonsTheWorkToo() async {
        let signal = AbortSignal()
        let job = Task { await signal.run { await Self.untilCancelled() } }
        try? await Task.sleep(for: .milliseconds(50))
        job.cancel()
        #expect(await job.value == nil)
    }
}
