import ReceiptdCore
import Testing

/// The processor's wake-up: a ring ends a wait early, a ring while nobody waits is kept for the next wait, and a
/// wait without one lasts its interval.
@Suite struct DoorbellTests {
    @Test func aRingBeforeTheWaitEndsTheNextWaitAtOnce() async {
        let bell = Doorbell()
        bell.ring()
        bell.ring()
        let start = ContinuousClock.now
        await bell.wait(upTo: .seconds(300))
        #expect(ContinuousClock.now - start < .seconds(60))
        // The two rings collapsed into one: the next wait lasts its interval.
        let second = ContinuousClock.now
        await bell.wait(upTo: .milliseconds(200))
        #expect(ContinuousClock.now - second >= .milliseconds(200))
    }

    @Test func aRingDuringTheWaitEndsIt() async {
        let bell = Doorbell()
        let start = ContinuousClock.now
        async let waited: Void = bell.wait(upTo: .seconds(300))
        try? await Task.sleep(for: .milliseconds(100))
        bell.ring()
        await waited
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test func aCancelledWaitReturns() async {
        let bell = Doorbell()
        let task = Task { await bell.wait(upTo: .seconds(300)) }
        task.cancel()
        await task.value
        bell.ring()
        await bell.wait(upTo: .seconds(300))
    }
}
