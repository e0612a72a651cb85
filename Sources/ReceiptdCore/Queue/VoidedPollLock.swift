/// What came of trying to poll under the voided poll's advisory lock.
package enum VoidedPollLock<Value: Sendable>: Sendable {
    /// The lock was taken and the poll gave this.
    case polled(Value)
    /// Another session holds the lock; no poll has had it for this long.
    case held(missingFor: Duration)
}
