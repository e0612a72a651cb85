import Synchronization

/// Wakes a worker that waits between polls: `ring()` ends the current (or next) `wait(upTo:)` early. Rings while
/// nobody waits collapse into one, so a burst costs the worker one extra pass, not one each.
package final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Creates a doorbell nobody has rung.
    package init() {}

    /// Wakes the waiter, or the next one to wait.
    package func ring() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.rung = true
                return CheckedContinuation<Void, Never>?.none
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after `interval`, when rung, or when the task is cancelled, whichever comes first.
    package func wait(upTo interval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: interval) }
            group.addTask { await self.rung() }
            await group.next()
            // A waiter left behind by the sleep winning is resumed by its cancellation handler.
            group.cancelAll()
        }
    }

    private func rung() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
    }
}
