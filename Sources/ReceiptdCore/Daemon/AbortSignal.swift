import Synchronization

/// A one-shot signal that tells a job task to abandon its store request.
///
/// The request runs in a task of its own that firing cancels: one task per job, no waiting task beside it.
final class AbortSignal: Sendable {
    private struct State {
        var fired = false
        var finished = false
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Fires the signal: the work `run` started is cancelled; later calls, and calls after it ended, do nothing.
    func fire() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.fired, !state.finished else { return nil }
            state.fired = true
            return state.cancel
        }
        cancel?()
    }

    /// Runs `body` until it returns; nil when the signal fired meanwhile (or before) or the calling task was
    /// cancelled, whatever `body` made of its cancellation.
    func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T? {
        let task = Task { await body() }
        let firedAlready = state.withLock { state -> Bool in
            state.cancel = { task.cancel() }
            return state.fired
        }
        if firedAlready { task.cancel() }
        let value = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        let fired = state.withLock { state -> Bool in
            state.finished = true
            state.cancel = nil
            return state.fired
        }
        return fired || Task.isCancelled ? nil : value
    }
}
