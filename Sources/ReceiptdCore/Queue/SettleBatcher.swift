import Synchronization

/// Gathers the verified answers that arrive while a settle is under way and settles them together, as group
/// commit does: an idle daemon settles each answer at once, a busy one settles many per statement and commit.
/// No timer waits for a batch to fill, so batching never adds latency.
final class SettleBatcher: Sendable {
    typealias Settled = Settlement

    private struct Waiting {
        var answer: VerifiedAnswer
        var continuation: UnsafeContinuation<Settled, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var settling = 0
    }

    /// Most answers one settle takes.
    let maximumBatch: Int
    /// Settles under way at once; each holds a database connection.
    let maximumConcurrent: Int
    private let settle: @Sendable ([VerifiedAnswer]) async -> [Result<Settled, any Error>]
    private let state = Mutex(State())

    init(
        maximumBatch: Int,
        maximumConcurrent: Int,
        settle: @escaping @Sendable ([VerifiedAnswer]) async -> [Result<Settled, any Error>]
    ) {
        self.maximumBatch = maximumBatch
        self.maximumConcurrent = maximumConcurrent
        self.settle = settle
    }

    /// Settles `answer` with whatever else is waiting; returns its own result. A failure of the batch (a lost
    /// connection) is every member's failure, and each retries on its own; `settle` may also fail members alone.
    func settle(_ answer: VerifiedAnswer) async throws -> Settled {
        // Unchecked: `drain` resumes each waiting answer exactly once, and the checked kind costs an allocation a job.
        try await withUnsafeThrowingContinuation { continuation in
            let startsSettling = state.withLock { state in
                state.queue.append(Waiting(answer: answer, continuation: continuation))
                guard state.settling < maximumConcurrent else { return false }
                state.settling += 1
                return true
            }
            if startsSettling { Task { await drain() } }
        }
    }

    /// Settles batches until nothing waits.
    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.queue.prefix(maximumBatch))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.settling -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            let results = await settle(batch.map(\.answer))
            for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
        }
    }
}
