import Foundation
import ReceiptdCore

/// The game's login read at size (issue #48, item 2): `iap.entitlements(user_id)` for random seeded players, on
/// `connections` connections at once for `seconds`, each call timed from its send to its last row. Each
/// connection's loop runs on that connection's own thread (libpq blocks), off Swift's cooperative pool, with the
/// statement prepared as a game server's driver would.
package struct LoginReadLatency: Sendable, Codable {
    /// The goal at 1,000,000 subscriptions: p95 at most this, in milliseconds.
    package static let goalMilliseconds = 3.0

    /// Connections calling at once.
    package var connections: Int
    /// Seconds the calls ran.
    package var seconds: Double
    /// Calls made.
    package var calls: Int
    /// Calls per second over all connections.
    package var callsPerSecond: Double
    /// Percentiles of one call, in milliseconds.
    package var p50, p95, p99, max: Double
    /// Calls that failed.
    package var failures: Int

    /// Whether p95 met the goal with no failure.
    package var meetsGoal: Bool { failures == 0 && p95 <= Self.goalMilliseconds }

    /// `p50/p95/p99 ms`, for the table.
    package var text: String {
        [p50, p95, p99].map { String(format: $0 >= 100 ? "%.0f" : "%.2f", $0) }.joined(separator: "/")
    }

    /// Calls `iap.entitlements` for random players among `players` (`SubscriptionSeed.userID(player:)`) on the
    /// database at `connectionString`.
    package static func measure(
        connectionString: String,
        players: Int,
        connections: Int = 16,
        seconds: Double = 10
    ) async throws -> LoginReadLatency {
        var opened: [PostgresConnection] = []
        do {
            for _ in 0..<connections { opened.append(try await PostgresConnection.connect(connectionString)) }
            let result = try await measure(on: opened, players: players, seconds: seconds)
            for connection in opened { await connection.close() }
            return result
        } catch {
            for connection in opened { await connection.close() }
            throw error
        }
    }

    private static func measure(
        on opened: [PostgresConnection],
        players: Int,
        seconds: Double
    ) async throws
        -> LoginReadLatency
    {
        let sql =
            "SELECT store, product_id, kind, subscription_id, state, entitled_until, auto_renew FROM iap.entitlements($1)"
        // Warm: each connection prepares the statement and reads the catalogue once, untimed.
        for connection in opened { try await connection.execute(sql, [SubscriptionSeed.userID(player: 0)]) }
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(seconds * 1000))
        let timings = try await withThrowingTaskGroup(of: (samples: [Double], failures: Int).self) { group in
            for connection in opened {
                group.addTask {
                    try await connection.withSession { session in
                        var samples: [Double] = []
                        samples.reserveCapacity(100_000)
                        var failures = 0
                        var random = SystemRandomNumberGenerator()
                        while ContinuousClock.now < deadline {
                            let player = SubscriptionSeed.userID(
                                player: Int.random(in: 0..<Swift.max(players, 1), using: &random)
                            )
                            let call = ContinuousClock.now
                            do {
                                _ = try session.execute(sql, [player])
                                samples.append((ContinuousClock.now - call).seconds)
                            } catch {
                                failures += 1
                            }
                        }
                        return (samples, failures)
                    }
                }
            }
            return try await group.reduce(into: (samples: [Double](), failures: 0)) {
                $0.samples += $1.samples
                $0.failures += $1.failures
            }
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let sorted = timings.samples.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let rank = Int((fraction * Double(sorted.count)).rounded(.up))
            return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1] * 1000
        }
        return LoginReadLatency(
            connections: opened.count,
            seconds: elapsed,
            calls: sorted.count,
            callsPerSecond: elapsed > 0 ? Double(sorted.count) / elapsed : 0,
            p50: percentile(0.5),
            p95: percentile(0.95),
            p99: percentile(0.99),
            max: (sorted.last ?? 0) * 1000,
            failures: timings.failures
        )
    }
}
