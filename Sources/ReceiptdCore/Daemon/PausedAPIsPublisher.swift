import Logging
import Synchronization

/// Writes the store APIs whose jobs this daemon's claims skip to its `iap.daemons.paused_apis`, for
/// `receiptd status`: the latest value wins, one write at a time, retried while the database refuses.
final class PausedAPIsPublisher: Sendable {
    private struct State {
        var latest: [StoreAPI] = []
        var writing = false
        var dirty = false
    }

    private let queue: any JobQueue
    private let logger: Logger
    private let state = Mutex(State())

    init(queue: any JobQueue, logger: Logger) {
        self.queue = queue
        self.logger = logger
    }

    /// Notes the paused APIs; returns true when no write is under way, and the caller must run `drain()`.
    func note(_ apis: [StoreAPI]) -> Bool {
        state.withLock { state in
            state.latest = apis
            if state.writing {
                state.dirty = true
                return false
            }
            state.writing = true
            return true
        }
    }

    /// Writes the latest value until nothing noted is left unwritten (or the task is cancelled).
    func drain() async {
        while !Task.isCancelled {
            let apis = state.withLock { state in
                state.dirty = false
                return state.latest
            }
            do {
                try await queue.publishPausedAPIs(apis)
            } catch {
                logger.debug("could not publish the paused store APIs; retrying", metadata: [LogKey.error: "\(error)"])
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            let done = state.withLock { state in
                if state.dirty { return false }
                state.writing = false
                return true
            }
            if done { return }
        }
        state.withLock { $0.writing = false }
    }
}
