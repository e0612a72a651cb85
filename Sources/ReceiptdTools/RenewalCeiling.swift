import Foundation
import ReceiptdCore
import ReceiptdTestKit

/// The renewal ceiling (issue #48, item 7): the SQL of one renewal, from the store's notification recorded to its
/// period delivered and its subscription brought up to date, driven by pgbench with no HTTP and no Swift in between,
/// on a seeded database. The renewal storms are given as a share of it.
package struct RenewalCeiling: Sendable, Codable, Equatable {
    /// pgbench clients.
    package var clients: Int
    /// Seconds pgbench ran, per store.
    package var seconds: Int
    /// App Store renewals (`DID_RENEW`) delivered per second.
    package var apple: Double
    /// Google Play renewals (`SUBSCRIPTION_RENEWED`, after the `subscriptionsv2` read) delivered per second.
    package var google: Double

    /// Renewals per second of `store`'s ceiling.
    package func renewalsPerSecond(of store: Store) -> Double {
        store == .apple ? apple : google
    }

    /// `rate` (renewals per second end to end, as a storm measures them) as a share of `store`'s ceiling; nil when
    /// the ceiling is not known.
    package func share(of rate: Double, store: Store) -> Double? {
        let ceiling = renewalsPerSecond(of: store)
        return ceiling > 0 ? rate / ceiling : nil
    }

    /// Runs both stores' renewals in turn against `database` of `postgres` (seeded with subscriptions by
    /// `SubscriptionSeed`), `seconds` each over `clients` pgbench clients.
    static func measure(
        postgres: TemporaryPostgres,
        database: String,
        clients: Int,
        seconds: Int
    ) async throws -> RenewalCeiling {
        var ceiling = RenewalCeiling(clients: clients, seconds: seconds, apple: 0, google: 0)
        ceiling.apple = try await renewalsPerSecond(
            .apple,
            postgres: postgres,
            database: database,
            clients: clients,
            seconds: seconds
        )
        ceiling.google = try await renewalsPerSecond(
            .google,
            postgres: postgres,
            database: database,
            clients: clients,
            seconds: seconds
        )
        return ceiling
    }

    /// One store's renewals per second: the renewable subscriptions listed, a head start of notifications recorded
    /// (so the first passes find full batches), then the timed run; counted as the period jobs that succeeded.
    static func renewalsPerSecond(
        _ store: Store,
        postgres: TemporaryPostgres,
        database: String,
        clients: Int,
        seconds: Int
    ) async throws -> Double {
        let url = postgres.connectionString(database: database)
        let connection = try await PostgresConnection.connect(url)
        let prepared: (targets: Int, lastJob: Int)
        do {
            for statement in preparation { try await connection.execute(statement) }
            let targets =
                try await connection.execute(
                    "SELECT count(*) AS n FROM public.ceiling_targets WHERE store = $1",
                    [store.rawValue]
                ).first?.int("n") ?? 0
            let lastJob = try await connection.execute("SELECT coalesce(max(id), 0) AS n FROM iap.jobs").first?.int("n")
            prepared = (targets, lastJob ?? 0)
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        guard prepared.targets > 0 else { throw LoadError("no active \(store.rawValue) subscription to renew") }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "receiptd-renewals-\(getpid())-\(store.rawValue)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [(path: String, weight: Int)] = []
        for (name, script) in scripts(store) {
            let path = folder.appendingPathComponent("\(store.rawValue)-\(name.rawValue).sql").path
            try script.text.write(toFile: path, atomically: true, encoding: .utf8)
            files.append((path, script.weight))
        }
        let variables = ["targets": prepared.targets, "clients": clients]
        // The head start: notifications only, to a fixed count per client (run 0); the timed run's counts go on.
        let headStart = try pgbench(
            postgres: postgres,
            database: database,
            scripts: [(files[0].path, 1)],
            clients: clients,
            limit: .transactions(max(1, headStartPerClient)),
            variables: variables.merging(["run": 0, "seq": 0]) { $1 },
            output: folder.appendingPathComponent("head.txt").path
        )
        while headStart.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        guard headStart.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: folder.appendingPathComponent("head.txt").path, encoding: .utf8))
            throw LoadError("pgbench's head start failed:\n\((text ?? "").suffix(2000))")
        }

        let outputPath = folder.appendingPathComponent("out.txt").path
        let process = try pgbench(
            postgres: postgres,
            database: database,
            scripts: files,
            clients: clients,
            limit: .seconds(seconds),
            variables: variables.merging(["run": 1, "seq": headStartPerClient]) { $1 },
            output: outputPath
        )
        // Stopped at the deadline and counted from the database, as the receipt ceiling is (see there).
        let started = ContinuousClock.now
        while process.isRunning, ContinuousClock.now - started < .seconds(seconds) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let done = try await deliveredPeriods(url: url, after: prepared.lastJob)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try await cleanUp(url: url, after: prepared.lastJob)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard done > 0 else { throw LoadError("pgbench delivered no renewal:\n\(text.suffix(2000))") }
        if text.contains("aborted") { throw LoadError("a pgbench client aborted:\n\(text.suffix(2000))") }
        return Double(done) / elapsed
    }

    /// The period jobs made after job `lastJob` that succeeded (each delivered its period).
    private static func deliveredPeriods(url: String, after lastJob: Int) async throws -> Int {
        let connection = try await PostgresConnection.connect(url)
        let count = try await connection.execute(
            "SELECT count(*) AS n FROM iap.jobs WHERE id > $1 AND state = 'succeeded' AND locked_by IS NULL",
            [lastJob]
        ).first?.int("n")
        await connection.close()
        return count ?? 0
    }

    /// Runs `cleanup` once pgbench is gone (its sessions' transactions rolled back).
    private static func cleanUp(url: String, after lastJob: Int) async throws {
        let connection = try await PostgresConnection.connect(url)
        do {
            // A killed client's session ends once its statement does; one still there after 10 s is ended.
            let sessions = "FROM pg_stat_activity WHERE application_name = 'pgbench' AND datname = current_database()"
            let deadline = ContinuousClock.now + .seconds(10)
            while try await connection.execute("SELECT count(*) AS n \(sessions)").first?.int("n") ?? 0 > 0 {
                guard ContinuousClock.now < deadline else {
                    try await connection.execute("SELECT pg_terminate_backend(pid) \(sessions)")
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            for statement in cleanup {
                try await connection.execute(statement, statement.contains("$1") ? [lastJob] : [])
            }
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The daemon's planner settings (`PostgresJobQueue.planSettings`), which pgbench's sessions take as
    /// `PGOPTIONS`. Not its `lock_timeout`: a pgbench client cannot try a statement again, as the daemon does.
    static let sessionOptions = PostgresJobQueue.planSettings.map { "-c \($0.name)=\($0.value)" }.joined(separator: " ")

    private enum Limit {
        case transactions(Int)
        case seconds(Int)
    }

    /// Starts pgbench with `scripts` (path and weight) and pgbench variables, in the daemon's session settings.
    private static func pgbench(
        postgres: TemporaryPostgres,
        database: String,
        scripts: [(path: String, weight: Int)],
        clients: Int,
        limit: Limit,
        variables: [String: Int],
        output outputPath: String
    ) throws -> Process {
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DatabaseCeiling.pgbenchPath())
        var arguments = ["-h", "127.0.0.1", "-p", String(postgres.port), "-U", "postgres", "-n", "-M", "prepared"]
        arguments += scripts.flatMap { ["-f", "\($0.path)@\($0.weight)"] }
        arguments += variables.sorted { $0.key < $1.key }.flatMap { ["-D", "\($0.key)=\($0.value)"] }
        switch limit {
        case .transactions(let count): arguments += ["-t", String(count)]
        case .seconds(let seconds): arguments += ["-T", String(seconds)]
        }
        arguments += ["-c", String(clients), "-j", String(min(clients, 4)), database]
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PGOPTIONS"] = sessionOptions
        process.environment = environment
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try? output.close()
        return process
    }
}
