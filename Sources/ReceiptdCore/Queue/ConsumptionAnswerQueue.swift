/// Where the consumption sender finds the consumption answers owed to Apple (`iap.consumption_requests`) and
/// records what came of them, part of the queue seam: `PostgresJobQueue` implements it.
package protocol ConsumptionAnswerQueue: Sendable {
    /// Claims up to `limit` due `pending` requests that no other daemon holds, for `lease`, counting the try.
    func claimConsumptionRequests(limit: Int, lease: Duration) async throws -> [OwedConsumptionAnswer]
    /// Renews the lease on `owed` before its call; false when it is no longer this daemon's or no longer pending.
    func renewConsumptionLease(_ owed: OwedConsumptionAnswer, lease: Duration) async throws -> Bool
    /// Apple accepted the answer: `sent`, with the delivery status and the body sent.
    func markConsumptionSent(_ owed: OwedConsumptionAnswer, deliveryStatus: String, body: String) async throws
    /// A transient failure: due again after `delay`, free for any daemon.
    func recordConsumptionRetry(_ owed: OwedConsumptionAnswer, after delay: Duration, error: String) async throws
    /// No Server API slot was free: due again after `delay`, the try not counted.
    func postponeConsumption(_ owed: OwedConsumptionAnswer, after delay: Duration) async throws
    /// Apple refused the answer for good: `failed`.
    func markConsumptionFailed(_ owed: OwedConsumptionAnswer, error: String) async throws
}
