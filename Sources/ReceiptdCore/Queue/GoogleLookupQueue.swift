/// Where the lookup worker takes Google notifications that need Google's answer first (`awaiting_lookup`), and
/// writes what Google said: `PostgresJobQueue` implements it. Each call is one short statement: no transaction
/// stays open while Google is asked.
package protocol GoogleLookupQueue: Sendable {
    /// Claims up to `limit` due Google notifications awaiting their lookup, skipping those another daemon holds:
    /// each is leased by pushing its `run_at` `lease` ahead, counting the try in `attempts`.
    func claimLookups(limit: Int, lease: Duration) async throws -> [ClaimedLookup]
    /// Adds Google's answer to the payload under `key` (`"purchase"` or `"voided"`, `answer` a JSON text), clears
    /// `awaiting_lookup` and tells the processors; false when the row is no longer this claim's (its lease ran out
    /// and another daemon took it, or it was processed).
    func storeLookup(_ lookup: ClaimedLookup, key: String, answer: String) async throws -> Bool
    /// Puts the lookup off by `delay`, with `error` saying why; `countsAttempt` false gives the claim's attempt back
    /// (Google Play not configured: waiting burns no attempts).
    func deferLookup(_ lookup: ClaimedLookup, delay: Duration, error: String, countsAttempt: Bool) async throws
    /// Marks the notification processed as `failed` with `error` (Google does not know the purchase).
    func failLookup(_ lookup: ClaimedLookup, error: String) async throws
}

/// A Google notification the lookup worker claimed.
package struct ClaimedLookup: Sendable, Equatable {
    /// `iap.store_notifications.id`.
    package var id: Int64
    /// `notification_type`.
    package var type: String
    /// The payload as recorded.
    package var payload: String
    /// `attempts` after this claim: the lease is this claim's while it is unchanged.
    package var attempts: Int
}
