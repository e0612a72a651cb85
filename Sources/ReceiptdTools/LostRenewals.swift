import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit

/// What one run of lost renewals measured (issue #48, item 5): `LostRenewalSource`'s subscriptions reached the end
/// of their entitlement together, with no news, and receiptd's re-read had to find every renewal.
package struct LostRenewals: Sendable, Codable {
    /// The store.
    package var store: Store
    /// Whether the store's documented limit held (else lifted: receiptd's own ceiling).
    package var atLimits: Bool
    /// The stand-in's latency, milliseconds.
    package var latencyMilliseconds: Int
    /// Subscriptions whose renewal was lost.
    package var renewals: Int
    /// Renewals the re-read found and delivered.
    package var found: Int
    /// From the entitlements' end to the last renewal delivered, in seconds.
    package var drainSeconds: Double
    /// The run as the storm driver measured it: CPU, peak RSS, store calls, exactly once, the costliest statements.
    package var run: RenewalStormFigures

    /// Renewals found per second of the drain.
    package var rereadsPerSecond: Double { drainSeconds > 0 ? Double(found) / drainSeconds : 0 }

    /// The limit the re-reads run under, per second; nil when lifted.
    package var limitPerSecond: Double? { atLimits ? LostRenewalSource.documentedLimitPerSecond : nil }

    /// The drain time the limit allows: renewals over the limit.
    package var drainAtLimitSeconds: Double? { limitPerSecond.map { Double(renewals) / $0 } }

    /// Whether the run met its goal: at the limits, ≥ 95% of it; lifted, ≥ 500 re-reads a second; every renewal
    /// found and delivered exactly once.
    package var meetsGoal: Bool {
        found == renewals && run.exactlyOnce && rereadsPerSecond >= run.goalPerSecond
    }

    /// The stand-ins' latencies the runs take.
    package static let latencies = [0, 250]

    /// Every run, `renewals` subscriptions each: each store at its limits and with them lifted, at each latency, on
    /// the seeded `database` with `executable run`, stand-ins of their own in this process.
    package static func measure(
        renewals: Int,
        executable: String,
        postgres: TemporaryPostgres,
        database: String,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> [LostRenewals] {
        var runs: [LostRenewals] = []
        for latency in latencies {
            for atLimits in [true, false] {
                for store in [Store.apple, .google] {
                    let source = LostRenewalSource(store: store, atLimits: atLimits)
                    let run = try await measure(
                        source,
                        renewals: renewals,
                        latency: latency,
                        executable: executable,
                        postgres: postgres,
                        database: database,
                        say: say
                    )
                    if let run { runs.append(run) }
                }
            }
        }
        return runs
    }

    private static func measure(
        _ source: LostRenewalSource,
        renewals: Int,
        latency: Int,
        executable: String,
        postgres: TemporaryPostgres,
        database: String,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> LostRenewals? {
        try await BenchmarkStandIns.with(
            appStore: .init(serverAPILatency: latency),
            googlePlay: .init(
                latency: latency,
                queriesPerMinute: source.atLimits ? LostRenewalSource.googleQueriesPerMinute : nil
            )
        ) { appStore, googlePlay, storeEnvironment in
            let url = postgres.connectionString(database: database)
            let name = "\(source.name), \(latency) ms"
            say("\(name): \(renewals) subscriptions end with no news")
            // At the limits the drain takes renewals / limit; a quarter more and a minute for the start.
            let cap: Duration =
                source.atLimits
                ? .seconds(Double(renewals) / LostRenewalSource.documentedLimitPerSecond * 1.25 + 60) : RenewalStorm.cap
            let figures = try await RenewalStorm.measure(
                source,
                renewals: renewals,
                executable: executable,
                context: RenewalStorm.Context(connectionString: url, appStore: appStore, googlePlay: googlePlay),
                database: database,
                postmaster: postgres.postmasterPID ?? 0,
                storeEnvironment: storeEnvironment,
                cap: cap,
                say: say
            )
            guard let figures else { return nil }
            let drain = try await drain(store: source.store, connectionString: url)
            let run = LostRenewals(
                store: source.store,
                atLimits: source.atLimits,
                latencyMilliseconds: latency,
                renewals: figures.renewals,
                found: drain.found,
                drainSeconds: drain.seconds,
                run: figures
            )
            say(
                String(
                    format: "%@: %d of %d found in %.1f s after the entitlements ended, %.0f re-reads/s",
                    name,
                    run.found,
                    run.renewals,
                    run.drainSeconds,
                    run.rereadsPerSecond
                )
            )
            return run
        }
    }

    /// The renewals of `store`'s latest run found in the ledger, and the time from the entitlements' end (the
    /// previous period's end, one for all) to the last of them delivered.
    private static func drain(store: Store, connectionString: String) async throws -> (found: Int, seconds: Double) {
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            let row = try await connection.execute(
                """
                SELECT count(d.transaction_id) AS found,
                       coalesce(extract(epoch FROM max(d.delivered_at) - min(r.previous_end)), 0)::float8 AS seconds
                FROM \(RenewalStorm.table) r
                LEFT JOIN iap.deliveries d ON d.store = r.store AND d.transaction_id = r.transaction_id
                WHERE r.store = $1
                """,
                [store.rawValue]
            ).namedRows.first
            await connection.close()
            return (try row?.int("found") ?? 0, Double(row?["seconds"] ?? "") ?? 0)
        } catch {
            await connection.close()
            throw error
        }
    }
}
