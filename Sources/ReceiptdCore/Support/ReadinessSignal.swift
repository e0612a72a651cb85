import Synchronization

/// A one-way latch: `wait()` returns once `fire()` has been called, or when the waiting task is cancelled.
///
/// Firing again is harmless, so a component that becomes ready after every reconnect may simply fire each time.
package final class ReadinessSignal: Sendable {
    private struct State {
        var fired = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Creates an unfired signal.
    package init() {}

    /// True once `fire()` has been called.
    package var isFired: Bool { state.withLock { $0.fired } }

    /// Fires the signal and releases every waiter.
    package func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the signal fires or the task is cancelled; check `isFired` to tell which.
    package func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Checked under the lock: a cancellation that lands after this finds the waiter stored.
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
