import Foundation

/// The App Store Server API's request budget, shared by every daemon on the database through one row of
/// `iap.api_pacing`: slots 1/rate seconds apart, none before a `Retry-After` the API sent.
struct ServerAPIPacing: Sendable {
    /// Where the shared budget lives.
    let queue: any JobQueue
    /// Requests per second for all daemons together (`APPLE_SERVER_API_RATE`).
    let rate: Int
    /// The longest a request waits in the daemon for its slot; a later slot is not taken.
    var longestWait = Self.defaultLongestWait

    /// Two seconds: long enough to ride out a burst, short enough to hold no job for long.
    static let defaultLongestWait: Duration = .seconds(2)

    /// Takes the next slot and returns how long to wait for it, or `nil` with how long until one could be had
    /// when that is further off than `longestWait` (nothing is taken then).
    func reserve() async throws -> (granted: Bool, wait: Duration) {
        try await queue.reserveServerAPISlot(rate: rate, longestWait: longestWait)
    }

    /// The longest a `Retry-After` blocks the API, as for verifyReceipt: an hour. A longer one (Apple's is a time in
    /// milliseconds, so a bad one can name a date centuries ahead) would park every Server API job.
    static let longestBlock: Duration = .seconds(3600)

    /// Holds every daemon's requests until `until` (a 429's `Retry-After`), at most ``longestBlock`` from now.
    func block(until: Date) async throws {
        try await queue.blockServerAPI(until: until, longest: Self.longestBlock)
    }
}
