import Synchronization

/// Collapses many reasons to look for work (notifications, poll ticks) into one pending `.wake`,
/// so a burst of enqueues costs one claim, not one claim each.
final class WakeSignal: Sendable {
    private let pending = Mutex(false)
    private let events: AsyncStream<DaemonEvent>.Continuation

    init(events: AsyncStream<DaemonEvent>.Continuation) {
        self.events = events
    }

    /// Queues a `.wake` unless one is already waiting.
    func wake() {
        let queued = pending.withLock { pending in
            defer { pending = true }
            return pending
        }
        if !queued { events.yield(.wake) }
    }

    /// Called by the dispatcher as it handles a `.wake`: later reasons queue a new one.
    func consumed() {
        pending.withLock { $0 = false }
    }
}
