import Foundation

/// The App Store Server API's request budget, shared by every daemon on the database through one row of
/// `iap.api_pacing`: slots 1/rate seconds apart, none before a `Retry-After` the API sent.
struct ServerAPIPacing: Sendable {
    let pool: DatabasePool
    /// Requests per second for all daemons together (`APPLE_SERVER_API_RATE`).
    let rate: Int
    /// The longest a request waits in the daemon for its slot; a later slot is not taken.
    var longestWait = Self.defaultLongestWait

    /// Two seconds: long enough to ride out a burst, short enough to hold no job for long.
    static let defaultLongestWait: Duration = .seconds(2)

    private static let api = "apple_server_api"

    /// Takes the next slot and returns how long to wait for it, or `nil` with how long until one could be had
    /// when that is further off than `longestWait` (nothing is taken then).
    func reserve() async throws -> (granted: Bool, wait: Duration) {
        let granted = try await pool.execute(
            """
            UPDATE iap.api_pacing p
            SET next_slot = greatest(p.next_slot, t.now, p.blocked_until) + make_interval(secs => 1.0 / $2)
            FROM (SELECT clock_timestamp() AS now) t
            WHERE p.api = $1 AND greatest(p.next_slot, t.now, p.blocked_until) <= t.now + make_interval(secs => $3)
            RETURNING greatest(extract(epoch FROM p.next_slot - t.now) - 1.0 / $2, 0)::float8 AS wait
            """,
            [Self.api, rate, longestWait.seconds]
        ).first
        if let wait = granted?["wait"].flatMap(Double.init) {
            return (true, .seconds(wait))
        }
        let row = try await pool.execute(
            """
            SELECT greatest(extract(epoch FROM greatest(next_slot, blocked_until) - clock_timestamp()), 0)::float8 AS wait
            FROM iap.api_pacing WHERE api = $1
            """,
            [Self.api]
        ).first
        guard let wait = row?["wait"].flatMap(Double.init) else {
            throw PostgresError(
                kind: .query,
                message: "iap.api_pacing has no row for \(Self.api): run receiptd migrate"
            )
        }
        return (false, .seconds(wait))
    }

    /// The longest a `Retry-After` blocks the API, as for verifyReceipt: an hour. A longer one (Apple's is a time in
    /// milliseconds, so a bad one can name a date centuries ahead) would park every Server API job.
    static let longestBlock: Double = 3600

    /// Holds every daemon's requests until `until` (a 429's `Retry-After`), at most ``longestBlock`` from now.
    func block(until: Date) async throws {
        try await pool.execute(
            """
            UPDATE iap.api_pacing
            SET blocked_until = least(greatest(blocked_until, to_timestamp($2)), now() + make_interval(secs => $3))
            WHERE api = $1
            """,
            [
                Self.api, min(until.timeIntervalSince1970, Date().timeIntervalSince1970 + Self.longestBlock),
                Self.longestBlock,
            ]
        )
    }
}
