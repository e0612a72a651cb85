import Foundation

/// The App Store Server API's request budgets, one an endpoint (Apple limits each on its own), each shared by every
/// daemon on the database through its row of `iap.api_pacing`: slots 1/rate seconds apart, none before a
/// `Retry-After` that endpoint sent. A 429 on one endpoint leaves the others' pace alone.
struct ServerAPIPacing: Sendable {
    /// Where the shared budgets live.
    let queue: any JobQueue
    /// `APPLE_SERVER_API_RATE`: requests per second to each endpoint for all daemons together, from which
    /// `AppStoreServerEndpoint.rate(configured:in:)` derives the lower ones.
    let rate: Int
    /// Counts the blocks.
    var metrics = ReceiptdMetrics()
    /// The longest a request waits in the daemon for its slot; a later slot is not taken.
    var longestWait = Self.defaultLongestWait

    /// Two seconds: long enough to ride out a burst, short enough to hold no job for long.
    static let defaultLongestWait: Duration = .seconds(2)

    /// Takes `endpoint`'s next slot for a request to `environment` and returns how long to wait for it, or `granted`
    /// false with how long until one could be had when that is further off than `longestWait` (nothing is taken
    /// then). Production and the sandbox share the endpoint's row: a sandbox request, paced at a tenth of the rate,
    /// takes the time of ten production ones.
    func reserve(
        _ endpoint: AppStoreServerEndpoint,
        in environment: StoreEnvironment
    ) async throws -> (granted: Bool, wait: Duration) {
        try await queue.reserveServerAPISlot(
            endpoint,
            rate: endpoint.rate(configured: rate, in: environment),
            longestWait: longestWait
        )
    }

    /// The longest a `Retry-After` blocks an endpoint, as for verifyReceipt: an hour. A longer one (Apple's is a time
    /// in milliseconds, so a bad one can name a date centuries ahead) would park every job needing the endpoint.
    static let longestBlock: Duration = .seconds(3600)

    /// Holds every daemon's requests to `endpoint` until `until` (a 429's `Retry-After`), at most ``longestBlock``
    /// from now.
    func block(_ endpoint: AppStoreServerEndpoint, until: Date) async throws {
        metrics.serverAPIBlocked(endpoint)
        try await queue.blockServerAPI(endpoint, until: until, longest: Self.longestBlock)
    }
}
