import Foundation
import ReceiptdCore
import ReceiptdTestKit

/// The database ceiling: the SQL receiptd issues per batch of jobs, driven by pgbench with no HTTP and no Swift in between.
package struct DatabaseCeiling: Sendable, Codable {
    /// pgbench clients.
    package var clients: Int
    /// Seconds pgbench ran.
    package var seconds: Int
    /// Jobs settled per second.
    package var jobsPerSecond: Double
    /// Average time one client spends per job (clients ÷ jobs per second), in milliseconds.
    package var averageLatencyMilliseconds: Double

    /// Runs pgbench against `database` of `postgres`, after queueing a head start of jobs so a claim always finds
    /// a full batch (the enqueue script's weight keeps the queue level on average).
    static func measure(
        postgres: TemporaryPostgres,
        database: String,
        clients: Int,
        seconds: Int
    ) async throws -> DatabaseCeiling {
        let connection = try await PostgresConnection.connect(postgres.connectionString(database: database))
        try await connection.execute(
            """
            SELECT count(iap.enqueue_receipt('seed-' || g, 'seedu-' || g, $1, 'e30=', 1)) FROM generate_series(1, $2) g
            """,
            [LoadOrderFactory.product, clients * jobsPerClaim * 10]
        )
        await connection.close()

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-pgbench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let jobPath = folder.appendingPathComponent("job.sql").path
        let enqueuePath = folder.appendingPathComponent("enqueue.sql").path
        let outputPath = folder.appendingPathComponent("out.txt").path
        try jobScript.write(toFile: jobPath, atomically: true, encoding: .utf8)
        try enqueueScript.write(toFile: enqueuePath, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: try pgbenchPath())
        process.arguments = [
            "-h", "127.0.0.1", "-p", String(postgres.port), "-U", "postgres", "-n", "-M", "prepared",
            "-f", "\(enqueuePath)@\(weights.enqueue)", "-f", "\(jobPath)@\(weights.jobs)",
            "-c", String(clients), "-j", String(min(clients, 4)), "-T", String(seconds), database,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PGOPTIONS"] = sessionOptions
        process.environment = environment
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Counted from the database rather than read from pgbench's summary, which never comes: -T relies
        // on SIGALRM, blocked in the mask pgbench inherits from us, so it is stopped at the deadline.
        let started = ContinuousClock.now
        while process.isRunning, ContinuousClock.now - started < .seconds(seconds) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let elapsed = (ContinuousClock.now - started).seconds
        let done = try await succeededJobs(postgres: postgres, database: database)
        // SIGKILL: pgbench inherits our blocked signal mask, so SIGTERM (and -T's SIGALRM) never reach it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try? output.close()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard done > 0 else { throw LoadError("pgbench settled no job:\n\(text.suffix(2000))") }
        let jobsPerSecond = Double(done) / elapsed
        return DatabaseCeiling(
            clients: clients,
            seconds: seconds,
            jobsPerSecond: jobsPerSecond,
            averageLatencyMilliseconds: Double(clients) / jobsPerSecond * 1000
        )
    }

    private static func succeededJobs(postgres: TemporaryPostgres, database: String) async throws -> Int {
        let connection = try await PostgresConnection.connect(postgres.connectionString(database: database))
        let count = try await connection.execute(
            "SELECT count(*) AS n FROM iap.jobs WHERE state = 'succeeded' AND locked_by IS NULL"
        ).first?.int("n")
        await connection.close()
        return count ?? 0
    }

    /// pgbench from PATH, else where Debian puts it.
    static func pgbenchPath() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/pgbench" } + ["/usr/lib/postgresql/15/bin/pgbench"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LoadError("pgbench not found (apt-get install postgresql-client or postgresql-contrib)")
        }
        return found
    }
}
