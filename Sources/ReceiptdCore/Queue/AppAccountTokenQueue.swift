/// The owed Set App Account Token calls (`iap.app_account_token_calls`), as `AppAccountTokenSetter` works them off.
package protocol AppAccountTokenQueue: Sendable {
    /// Claims up to `limit` due `pending` calls that no other daemon holds, for `lease`, counting the try.
    func claimAppAccountTokenCalls(limit: Int, lease: Duration) async throws -> [OwedAppAccountTokenCall]
    /// Renews the lease on `owed` before its call; false when it is no longer this daemon's or no longer pending.
    func renewAppAccountTokenLease(_ owed: OwedAppAccountTokenCall, lease: Duration) async throws -> Bool
    /// Apple took it: `sent`.
    func markAppAccountTokenSent(_ owed: OwedAppAccountTokenCall) async throws
    /// A transient failure: due again after `delay`, free for any daemon.
    func recordAppAccountTokenRetry(_ owed: OwedAppAccountTokenCall, after delay: Duration, error: String) async throws
    /// No Server API slot was free: due again after `delay`, the try not counted.
    func postponeAppAccountToken(_ owed: OwedAppAccountTokenCall, after delay: Duration) async throws
    /// Apple refused it for good: `failed`, with why.
    func markAppAccountTokenFailed(_ owed: OwedAppAccountTokenCall, error: String) async throws
}
