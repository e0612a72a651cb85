import Synchronization

/// The jobs this daemon is running, each with its abort signal.
///
/// Shared by the dispatcher (which adds and removes jobs as its state machine decides) and the listener (which
/// aborts), so that a cancel notification reaches the request at once, not after whatever the dispatcher is awaiting.
final class InFlightJobs: Sendable {
    private let signals = Mutex<[Int64: AbortSignal]>([:])

    /// Registers a job and returns its signal.
    func add(_ jobID: Int64) -> AbortSignal {
        let signal = AbortSignal()
        signals.withLock { $0[jobID] = signal }
        return signal
    }

    /// Forgets a finished job.
    func remove(_ jobID: Int64) {
        _ = signals.withLock { $0.removeValue(forKey: jobID) }
    }

    /// Aborts one job's request, if it runs here.
    func abort(_ jobID: Int64) {
        signals.withLock { $0[jobID] }?.fire()
    }

    /// Whether `jobID` runs here.
    func contains(_ jobID: Int64) -> Bool {
        signals.withLock { $0[jobID] != nil }
    }

    /// Aborts every request in flight.
    func abortAll() {
        signals.withLock { Array($0.values) }.forEach { $0.fire() }
    }

    /// The ids of the jobs in flight, whose heartbeats the daemon refreshes.
    var ids: [Int64] { signals.withLock { Array($0.keys) } }
}
