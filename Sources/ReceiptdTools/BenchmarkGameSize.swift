import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit

/// The rows at a successful game's size (issue #48): a database seeded by `SubscriptionSeed`, then the game's login
/// read, an idle daemon and the renewal storms on it. They run on a cluster of their own, which preloads
/// `pg_stat_statements`, so the other scenarios run on the server they always ran on.
package struct BenchmarkGameSize: Sendable, Codable {
    /// Subscriptions seeded, and their players.
    package var subscriptions, players: Int
    /// Rows the seed wrote: the ledger, orders, jobs and subscription history.
    package var deliveries, orders, jobs, history: Int
    /// Seconds the seed took (every table, then `VACUUM (ANALYZE)`).
    package var seedSeconds: Double
    /// `pg_database_size` after the seed.
    package var databaseBytes: Int64
    /// `iap.entitlements` over 16 connections.
    package var login: LoginReadLatency
    /// One idle daemon for a minute.
    package var idle: IdleDaemonCost
    /// The renewal storms, one per store (none with `--renewals 0`).
    package var storms: [RenewalStormFigures] = []

    /// The stores whose renewal storms run, in order.
    static var stormSources: [any RenewalStormSource] { [AppStoreRenewalStorm(), GooglePlayRenewalStorm()] }

    /// Seeds `subscriptions` subscriptions and measures the rows, with `executable run` as the daemon; each store's
    /// storm posts up to `renewals` renewals (0: no storm).
    package static func measure(
        executable: String,
        subscriptions: Int,
        renewals: Int,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> BenchmarkGameSize {
        let postgres = try TemporaryPostgres.start(
            configuration: .init(
                settings: ["synchronous_commit": "on", "shared_preload_libraries": "pg_stat_statements"]
            )
        )
        defer { postgres.stop() }
        let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_size")
        let url = postgres.connectionString(database: database)
        say("at a successful game's size: seeding \(subscriptions) subscriptions")
        let seedSeconds = try await SubscriptionSeed.write(
            subscriptions: subscriptions,
            connectionString: url,
            say: say
        )
        let counts = try await counts(url, database: database)
        say(
            String(
                format: "seeded in %.0f s: %d ledger rows, %.1f GB",
                seedSeconds,
                counts.deliveries,
                Double(counts.bytes) / 1e9
            )
        )
        let players = SubscriptionSeed.players(subscriptions: subscriptions)
        say("login read: iap.entitlements over 16 connections, 10 s")
        let login = try await LoginReadLatency.measure(connectionString: url, players: players)
        say(
            "login read: \(BenchmarkReport.format(login.callsPerSecond)) calls/s, p50/p95/p99 \(login.text) ms"
        )
        say("an idle daemon, 60 s")
        let (idle, storms) = try await daemonRows(
            executable: executable,
            postgres: postgres,
            database: database,
            renewals: renewals,
            say: say
        )
        return BenchmarkGameSize(
            subscriptions: subscriptions,
            players: players,
            deliveries: counts.deliveries,
            orders: counts.orders,
            jobs: counts.jobs,
            history: counts.history,
            seedSeconds: seedSeconds,
            databaseBytes: counts.bytes,
            login: login,
            idle: idle,
            storms: storms
        )
    }

    private static func counts(
        _ url: String,
        database: String
    ) async throws -> (
        deliveries: Int, orders: Int, jobs: Int, history: Int, bytes: Int64
    ) {
        let connection = try await PostgresConnection.connect(url)
        do {
            let row = try await connection.execute(
                """
                SELECT (SELECT count(*) FROM iap.deliveries) AS deliveries, (SELECT count(*) FROM iap.orders) AS orders,
                       (SELECT count(*) FROM iap.jobs) AS jobs, (SELECT count(*) FROM iap.subscription_history) AS history,
                       pg_database_size($1) AS bytes
                """,
                [database]
            ).namedRows.first
            await connection.close()
            guard let row else { throw ToolError("the seeded database answered no counts") }
            return (
                try row.int("deliveries"), try row.int("orders"), try row.int("jobs"), try row.int("history"),
                Int64(try row.string("bytes")) ?? 0
            )
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The idle daemon, then each store's renewal storm, with both stores' stand-ins in this process and the settings
    /// that turn on every sweep.
    private static func daemonRows(
        executable: String,
        postgres: TemporaryPostgres,
        database: String,
        renewals: Int,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> (IdleDaemonCost, [RenewalStormFigures]) {
        let quiet = { (label: String) in Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
        let standIn = AppStoreStandIn(configuration: .init(), logger: quiet("fake-appstore"))
        _ = try await standIn.start()
        let googlePlay = GooglePlayStandIn(logger: quiet("fake-googleplay"))
        do {
            _ = try await googlePlay.start()
            let storeKit = try StoreKitFiles(standIn: standIn, key: .generate())
            defer { storeKit.remove() }
            let google = try GooglePlayFiles(standIn: googlePlay)
            defer { google.remove() }
            let storeEnvironment = storeKit.environment.merging(google.environment) { $1 }
            let url = postgres.connectionString(database: database)
            let postmaster = postgres.postmasterPID ?? 0
            let cost = try await IdleDaemonCost.measure(
                executable: executable,
                connectionString: url,
                database: database,
                postmaster: postmaster,
                standIn: standIn,
                storeEnvironment: storeEnvironment
            )
            say(
                String(
                    format: "idle daemon: %.2f s daemon + %.2f s PostgreSQL CPU per minute (%.2f%% of a core)",
                    cost.daemonCPUSecondsPerMinute,
                    cost.postgresCPUSecondsPerMinute,
                    cost.shareOfCore * 100
                )
            )
            var storms: [RenewalStormFigures] = []
            if renewals > 0 {
                let context = RenewalStorm.Context(connectionString: url, appStore: standIn, googlePlay: googlePlay)
                for source in stormSources {
                    let figures = try await RenewalStorm.measure(
                        source,
                        renewals: renewals,
                        executable: executable,
                        context: context,
                        database: database,
                        postmaster: postmaster,
                        storeEnvironment: storeEnvironment,
                        say: say
                    )
                    if let figures { storms.append(figures) }
                }
            }
            try await googlePlay.shutdown()
            try await standIn.shutdown()
            return (cost, storms)
        } catch {
            try? await googlePlay.shutdown()
            try? await standIn.shutdown()
            throw error
        }
    }
}
