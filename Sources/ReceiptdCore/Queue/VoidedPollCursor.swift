/// What a voided poll reads and writes while it holds the poll's lock (see `JobQueue.withVoidedPollLock`).
package protocol VoidedPollCursor: Sendable {
    /// Where the last successful poll got to (Google's `startTime`, milliseconds), if one did.
    func startTime() async throws -> Int64?
    /// Marks the ledger rows of `voided` revoked (those not yet marked); returns how many were.
    func markVoided(_ voided: [VoidedDelivery]) async throws -> Int
    /// Records a successful poll: the next starts at `startTime`.
    func advance(to startTime: Int64) async throws
}
