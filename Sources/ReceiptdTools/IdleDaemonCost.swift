import FakeAppStore
import Foundation
import ReceiptdCore

#if canImport(Glibc)
import Glibc
#endif

/// What an idle daemon costs on a seeded database (issue #48, item 6): one `receiptd run` of this build, with the
/// App Store's Server API and Google Play configured (stand-ins in this process), so that every sweep, poll and
/// lease runs, and nothing due. After it is listening and has settled, its CPU and PostgreSQL's (the postmaster,
/// its living backends and the ones it reaped) are measured over `seconds`, and the statements that cost the most
/// are read from `pg_stat_statements`, reset when the measurement starts.
package struct IdleDaemonCost: Sendable, Codable {
    /// The goal: the daemon and PostgreSQL together below this share of one core.
    package static let goalShareOfCore = 0.01

    /// One statement's cost over the measurement, from `pg_stat_statements`.
    package struct Statement: Sendable, Codable {
        /// Its text, normalised by `pg_stat_statements`, whitespace folded and cut to 160 characters.
        package var query: String
        /// Times it ran.
        package var calls: Int
        /// Milliseconds it took in all, planning included.
        package var totalMilliseconds: Double
    }

    /// Seconds measured.
    package var seconds: Double
    /// The daemon's CPU seconds per minute.
    package var daemonCPUSecondsPerMinute: Double
    /// PostgreSQL's CPU seconds per minute.
    package var postgresCPUSecondsPerMinute: Double
    /// The costliest statements, the costliest first.
    package var statements: [Statement]

    /// The two together, as a share of one core.
    package var shareOfCore: Double { (daemonCPUSecondsPerMinute + postgresCPUSecondsPerMinute) / 60 }

    /// Runs `executable run` on the seeded database `database` at `connectionString` of a cluster that preloads
    /// `pg_stat_statements` (`postmaster` its pid), the stores' settings in `storeEnvironment`.
    package static func measure(
        executable: String,
        connectionString: String,
        database: String,
        postmaster: pid_t,
        standIn: AppStoreStandIn,
        storeEnvironment: [String: String],
        seconds: Double = 60,
        settle: Duration = .seconds(5)
    ) async throws -> IdleDaemonCost {
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
                "receiptd-bench-idle-\(getpid())-\(UUID().uuidString.prefix(8)).log"
            ).path
            let daemon = try DaemonProcess(
                executable: executable,
                environment: DaemonProcess.environment(
                    database: connectionString,
                    standIn: standIn,
                    overrides: storeEnvironment
                ),
                logPath: logPath
            )
            do {
                let result = try await measure(
                    daemon,
                    connection: connection,
                    database: database,
                    postmaster: postmaster,
                    seconds: seconds,
                    settle: settle
                )
                _ = await daemon.terminate(timeout: .seconds(10))
                await connection.close()
                return result
            } catch {
                if daemon.isRunning { daemon.kill9() }
                throw error
            }
        } catch {
            await connection.close()
            throw error
        }
    }

    private static func measure(
        _ daemon: DaemonProcess,
        connection: PostgresConnection,
        database: String,
        postmaster: pid_t,
        seconds: Double,
        settle: Duration
    ) async throws -> IdleDaemonCost {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let listening =
                try await connection.execute(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'",
                    [database]
                ).first?.int("n") ?? 0
            if listening > 0 { break }
            guard ContinuousClock.now < deadline, daemon.isRunning else {
                throw LoadError("the idle daemon did not start listening within 60 s")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Its start (the first pass of every sweep) is not idling.
        try await Task.sleep(for: settle)
        try await connection.execute("SELECT pg_stat_statements_reset()")
        let before = (
            daemon: ProcessStats(pid: daemon.pid)?.cpuSeconds ?? 0,
            postgres: ProcessStats.treeCPUSeconds(root: postmaster)
        )
        let started = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        guard let after = ProcessStats(pid: daemon.pid), daemon.isRunning else {
            throw LoadError("the idle daemon exited during the measurement")
        }
        let postgres = ProcessStats.treeCPUSeconds(root: postmaster) - before.postgres
        let elapsed = (ContinuousClock.now - started).seconds
        let statements = try await statements(connection: connection, database: database)
        let perMinute = { (cpu: Double) in elapsed > 0 ? cpu / elapsed * 60 : 0 }
        return IdleDaemonCost(
            seconds: elapsed,
            daemonCPUSecondsPerMinute: perMinute(after.cpuSeconds - before.daemon),
            postgresCPUSecondsPerMinute: perMinute(postgres),
            statements: statements
        )
    }

    /// The `limit` statements that cost the most in `database` since `pg_stat_statements` was last reset, planning
    /// included; the benchmark's own (which name `pg_stat_statements` or `renewal_storm`) left out.
    static func statements(
        connection: PostgresConnection,
        database: String,
        limit: Int = 5
    ) async throws -> [Statement] {
        try await connection.execute(
            """
            SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 160) AS query, s.calls,
                   (s.total_exec_time + s.total_plan_time)::float8 AS ms
            FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = $1 AND s.query NOT LIKE '%pg_stat_statements%' AND s.query NOT LIKE '%renewal_storm%'
            ORDER BY s.total_exec_time + s.total_plan_time DESC
            LIMIT $2
            """,
            [database, limit]
        ).namedRows.map {
            Statement(
                query: try $0.string("query"),
                calls: try $0.int("calls"),
                totalMilliseconds: Double(try $0.string("ms")) ?? 0
            )
        }
    }
}
