import Synchronization

/// Resumes a continuation with whichever answer arrives first; later answers are dropped.
///
/// Lets a blocking call race a timer without an unstructured task: both simply `give` their answer.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the continuation unless an earlier answer already did.
    func give(_ value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
