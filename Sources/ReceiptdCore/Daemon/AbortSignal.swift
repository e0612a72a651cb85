/// A one-shot signal that tells a job task to abandon its store request.
final class AbortSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Fires the signal; later calls do nothing.
    func fire() {
        continuation.yield()
        continuation.finish()
    }

    /// Returns once the signal fired, or when the waiting task is cancelled.
    func wait() async {
        for await _ in stream { return }
    }
}
