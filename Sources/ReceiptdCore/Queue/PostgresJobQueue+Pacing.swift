import Foundation

extension PostgresJobQueue {
    /// Takes `endpoint`'s next slot, 1/`rate` seconds after its last one and none before its block, when it is at
    /// most `longestWait` away; otherwise takes nothing and tells how long until one could be had.
    package func reserveServerAPISlot(
        _ endpoint: AppStoreServerEndpoint,
        rate: Double,
        longestWait: Duration
    ) async throws -> (granted: Bool, wait: Duration) {
        let granted = try await pool.execute(
            """
            UPDATE iap.api_pacing p
            SET next_slot = greatest(p.next_slot, t.now, p.blocked_until) + make_interval(secs => 1.0 / $2::float8)
            FROM (SELECT clock_timestamp() AS now) t
            WHERE p.api = $1 AND greatest(p.next_slot, t.now, p.blocked_until) <= t.now + make_interval(secs => $3)
            RETURNING greatest(extract(epoch FROM p.next_slot - t.now) - 1.0 / $2::float8, 0)::float8 AS wait
            """,
            [endpoint.rawValue, rate, longestWait.seconds]
        ).first
        if let wait = granted?["wait"].flatMap(Double.init) {
            return (true, .seconds(wait))
        }
        let row = try await pool.execute(
            """
            SELECT greatest(extract(epoch FROM greatest(next_slot, blocked_until) - clock_timestamp()), 0)::float8 AS wait
            FROM iap.api_pacing WHERE api = $1
            """,
            [endpoint.rawValue]
        ).first
        guard let wait = row?["wait"].flatMap(Double.init) else {
            throw PostgresError(
                kind: .query,
                message: "iap.api_pacing has no row for \(endpoint.rawValue): run receiptd migrate"
            )
        }
        return (false, .seconds(wait))
    }

    /// Holds every daemon's requests to `endpoint` until `until`, at most `longest` from now; the other endpoints
    /// keep their pace.
    package func blockServerAPI(_ endpoint: AppStoreServerEndpoint, until: Date, longest: Duration) async throws {
        try await pool.execute(
            """
            UPDATE iap.api_pacing
            SET blocked_until = least(greatest(blocked_until, to_timestamp($2)), now() + make_interval(secs => $3))
            WHERE api = $1
            """,
            [
                endpoint.rawValue, min(until.timeIntervalSince1970, Date().timeIntervalSince1970 + longest.seconds),
                longest.seconds,
            ]
        )
    }
}
