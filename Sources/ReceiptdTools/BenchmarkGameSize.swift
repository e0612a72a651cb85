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
    /// The lost renewals' runs (none with `--lost-renewals 0`).
    package var lostRenewals: [LostRenewals] = []

    /// The renewal's own SQL through pgbench on this database: what the renewal storms are a share of.
    package var renewalCeiling: RenewalCeiling?
    /// Why the renewal ceiling is missing, when it could not run.
    package var renewalCeilingFailure: String?
    /// The benchmark's scenarios (receipts, signed transactions, Google purchases) run on this database by this
    /// build, each adding its orders to it; their reference is this build's row on an empty database.
    package var scenarios: [BenchmarkScenario]?

    /// How far one figure is from its goal: the goal over the figure where less is better, the figure over the goal
    /// where more is, so that 1 or more meets the goal in either case.
    package struct GoalShare: Sendable, Equatable {
        /// The path, as the table names it.
        package var path: String
        /// 1 or more: the goal is met.
        package var share: Double
    }

    /// Every row's figure against its goal, for the plot.
    package var goalShares: [GoalShare] {
        [
            GoalShare(path: "login read p95", share: LoginReadLatency.goalMilliseconds / max(login.p95, 0.001)),
            GoalShare(path: "idle daemon CPU", share: IdleDaemonCost.goalShareOfCore / max(idle.shareOfCore, 1e-6)),
        ]
            + storms.map {
                GoalShare(path: "\($0.store.rawValue) renewals/s", share: $0.renewalsPerSecond / $0.goalPerSecond)
            }
            + lostRenewals.map {
                GoalShare(
                    path:
                        "\($0.store.rawValue) lost, \($0.atLimits ? "limits" : "lifted"), \($0.latencyMilliseconds) ms",
                    share: $0.rereadsPerSecond / $0.run.goalPerSecond
                )
            }
    }

    /// The stores whose renewal storms run, in order.
    static var stormSources: [any RenewalStormSource] { [AppStoreRenewalStorm(), GooglePlayRenewalStorm()] }

    /// Seeds `subscriptions` subscriptions and measures the rows, with `executable run` as the daemon; each store's
    /// storm posts up to `renewals` renewals (0: no storm); then `lostRenewals` subscriptions a run lose their
    /// renewals' news (0: none); `ceiling` (pgbench clients and seconds per store) for the renewal ceiling (this
    /// build's SQL: none for a baseline), and
    /// `scenarios` (when given) running its scenarios on the seeded database last. With `migrator`, that executable's
    /// own `migrate` makes the schema the seed writes into (a baseline build runs on the schema it shipped with).
    package static func measure(
        executable: String,
        migrator: String? = nil,
        subscriptions: Int,
        renewals: Int,
        lostRenewals: Int = 0,
        ceiling: (clients: Int, seconds: Int)? = nil,
        scenarios: BenchmarkRun? = nil,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> BenchmarkGameSize {
        let postgres = try TemporaryPostgres.start(
            configuration: .init(
                settings: ["synchronous_commit": "on", "shared_preload_libraries": "pg_stat_statements"]
            )
        )
        defer { postgres.stop() }
        let database = try await BenchmarkDatabase.create(on: postgres, named: "bench_size", migrator: migrator)
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
        var renewalCeiling: RenewalCeiling?
        var ceilingFailure: String?
        // The ceiling before the storms: a storm cut off at its cap leaves notifications and jobs that the ceiling's
        // claims would take first. A ceiling that fails is noted; the other rows still run.
        let (idle, storms) = try await daemonRows(
            executable: executable,
            postgres: postgres,
            database: database,
            renewals: renewals,
            say: say
        ) {
            guard let ceiling else { return }
            do {
                renewalCeiling = try await self.renewalCeiling(
                    postgres: postgres,
                    database: database,
                    clients: ceiling.clients,
                    seconds: ceiling.seconds,
                    say: say
                )
            } catch {
                ceilingFailure = "\(error)"
                say("renewal ceiling: could not run: \(error)")
            }
        }
        let lost =
            lostRenewals > 0
            ? try await LostRenewals.measure(
                renewals: lostRenewals,
                executable: executable,
                postgres: postgres,
                database: database,
                say: say
            ) : []
        var seeded: [BenchmarkScenario]?
        if let scenarios {
            seeded = try await seededScenarios(scenarios, postgres: postgres, database: database, say: say)
        }
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
            storms: storms,
            lostRenewals: lost,
            renewalCeiling: renewalCeiling,
            renewalCeilingFailure: ceilingFailure,
            scenarios: seeded
        )
    }

    /// The benchmark's scenarios on the seeded database. Their sessions leave `pg_stat_statements` idle, as on the
    /// cluster of their empty-database rows, which does not load it.
    private static func seededScenarios(
        _ benchmark: BenchmarkRun,
        postgres: TemporaryPostgres,
        database: String,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> [BenchmarkScenario] {
        say("the scenarios on the seeded database (this build)")
        // Identifiers cannot be parameters; the name is ours.
        let tracking = { (setting: String) in
            let admin = try await PostgresConnection.connect(postgres.connectionString())
            do {
                try await admin.execute("ALTER DATABASE \(database) \(setting)")
                await admin.close()
            } catch {
                await admin.close()
                throw error
            }
        }
        try await tracking("SET pg_stat_statements.track = 'none'")
        let scenarios = try await benchmark.seededScenarios(postgres: postgres, database: database)
        try await tracking("RESET pg_stat_statements.track")
        return scenarios
    }

    /// The renewal ceiling on the seeded database, each store in turn.
    private static func renewalCeiling(
        postgres: TemporaryPostgres,
        database: String,
        clients: Int,
        seconds: Int,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> RenewalCeiling {
        say("renewal ceiling: the renewal's SQL through pgbench, \(clients) clients, \(seconds) s per store")
        let ceiling = try await RenewalCeiling.measure(
            postgres: postgres,
            database: database,
            clients: clients,
            seconds: seconds
        )
        say(
            "renewal ceiling: App Store \(BenchmarkReport.format(ceiling.apple)) renewals/s, "
                + "Google Play \(BenchmarkReport.format(ceiling.google)) renewals/s"
        )
        return ceiling
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

    /// The idle daemon, then `beforeStorms`, then each store's renewal storm, with both stores' stand-ins in this
    /// process and the settings that turn on every sweep.
    private static func daemonRows(
        executable: String,
        postgres: TemporaryPostgres,
        database: String,
        renewals: Int,
        say: @escaping @Sendable (String) -> Void,
        beforeStorms: () async throws -> Void
    ) async throws -> (IdleDaemonCost, [RenewalStormFigures]) {
        try await BenchmarkStandIns.with { standIn, googlePlay, storeEnvironment in
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
            try await beforeStorms()
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
            return (cost, storms)
        }
    }
}
