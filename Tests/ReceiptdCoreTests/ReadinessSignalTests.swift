import Testing

@testable import ReceiptdCore

@Suite struct ReadinessSignalTests {
    @Test func waitersAreReleasedWhenItFires() async {
        let signal = ReadinessSignal()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { await signal.wait() } }
            try? await Task.sleep(for: .milliseconds(20))
            #expect(!signal.isFired)
            signal.fire()
            await group.waitForAll()
        }
        #expect(signal.isFired)
        await signal.wait()  // Already fired: returns at once.
        signal.fire()  // Firing again is harmless.
    }

    @Test func cancellationEndsTheWaitWithoutFiring() async {
        let signal = ReadinessSignal()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await signal.wait() }
            try? await Task.sleep(for: .milliseconds(20))
            group.cancelAll()
            await group.waitForAll()
        }
        #expect(!signal.isFired)
    }
}
