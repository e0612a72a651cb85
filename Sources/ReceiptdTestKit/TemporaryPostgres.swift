import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster in a temporary directory, for tests, the demo and benchmarks. Deleted on stop().
package final class TemporaryPostgres: Sendable {
    /// How the throwaway cluster is set up.
    package struct Configuration: Sendable {
        /// TCP port on 127.0.0.1; 0 picks a free one.
        package var port: Int
        /// The server's `max_connections`.
        package var maxConnections: Int
        /// Extra `postgresql.conf` settings, passed to the server as `-c name=value`; they win over ours.
        package var settings: [String: String]

        /// Creates a configuration; the defaults suit tests.
        package init(port: Int = 0, maxConnections: Int = 200, settings: [String: String] = [:]) {
            self.port = port
            self.maxConnections = maxConnections
            self.settings = settings
        }
    }

    /// How `pg_ctl` shuts the server down.
    package enum ShutdownMode: String, Sendable {
        /// Waits for every client to disconnect.
        case smart
        /// Disconnects clients, then shuts down cleanly.
        case fast
        /// Quits without a checkpoint, like a crash; the next start runs crash recovery.
        case immediate
    }

    /// The TCP port the server listens on at 127.0.0.1.
    package let port: Int
    /// The directory holding the server's unix socket; usable as libpq `host`.
    package let socketDirectory: String
    /// The cluster's data directory (PGDATA).
    package let dataDirectory: String

    private let rootDirectory: String
    private let logFile: String
    private let serverOptions: String
    private let tools: PostgresServerTools
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var isRemoved = false
        var watchdogPID: pid_t?
    }

    /// Creates the cluster with initdb, starts it and waits until it accepts connections.
    package static func start(configuration: Configuration = .init()) throws -> TemporaryPostgres {
        var attempt = 1
        while true {
            do {
                return try startOnce(configuration)
            } catch let error as TemporaryPostgresError
                where configuration.port == 0 && attempt < 3 && error.description.contains("Address already in use")
            {
                // A port we picked can be taken by another process before the server binds it.
                attempt += 1
            }
        }
    }

    private static func startOnce(_ configuration: Configuration) throws -> TemporaryPostgres {
        let tools = try PostgresServerTools.locate()
        let port = configuration.port == 0 ? try LoopbackPort.free() : configuration.port
        let rootDirectory = try tools.makeWorkspace()
        let cluster = TemporaryPostgres(
            rootDirectory: rootDirectory,
            port: port,
            configuration: configuration,
            tools: tools
        )
        // Registered before anything can fail, so exit() or a crash still cleans up.
        TemporaryPostgresRegistry.add(cluster)
        do {
            let watchdogPID = try tools.launchWatchdog(cleaningUp: rootDirectory)
            cluster.lifecycle.withLock { $0.watchdogPID = watchdogPID }
            try cluster.tools.run(
                "initdb",
                [
                    "-D", cluster.dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale",
                    "--no-sync",
                ],
                in: rootDirectory
            )
            try cluster.resume()
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    private init(rootDirectory: String, port: Int, configuration: Configuration, tools: PostgresServerTools) {
        self.rootDirectory = rootDirectory
        self.port = port
        self.socketDirectory = rootDirectory + "/socket"
        self.dataDirectory = rootDirectory + "/data"
        self.logFile = rootDirectory + "/log"
        self.tools = tools
        // Durability is pointless for a throwaway cluster, and skipping it makes tests much faster.
        var settings = [
            "listen_addresses": "127.0.0.1", "port": String(port), "unix_socket_directories": socketDirectory,
            "max_connections": String(configuration.maxConnections),
            "fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
        ]
        settings.merge(configuration.settings) { _, requested in requested }
        // pg_ctl hands -o to a shell, hence the quoting.
        self.serverOptions = settings.sorted { $0.key < $1.key }
            .map { "-c " + Self.shellQuoted("\($0.key)=\($0.value)") }
            .joined(separator: " ")
    }

    /// libpq key/value connection string, e.g. "host=127.0.0.1 port=P user=postgres dbname=NAME".
    package func connectionString(database: String = "postgres") -> String {
        let needsQuotes = database.isEmpty || database.contains { $0 == " " || $0 == "'" || $0 == "\\" }
        let escaped = database.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return "host=127.0.0.1 port=\(port) user=postgres dbname=" + (needsQuotes ? "'\(escaped)'" : database)
    }

    /// `pg_ctl restart -m MODE`; `.immediate` simulates a database crash.
    package func restart(mode: ShutdownMode = .fast) throws {
        try pgCtl("restart", ["-m", mode.rawValue, "-l", logFile, "-o", serverOptions])
    }

    /// `pg_ctl stop -m MODE`, keeping the data directory; bring the server back with ``resume()``.
    /// The postmaster's pid, from its pid file; `nil` while the server is stopped.
    package var postmasterPID: pid_t? {
        guard let contents = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let firstLine = contents.split(separator: "\n").first
        else { return nil }
        return pid_t(firstLine.trimmingCharacters(in: .whitespaces))
    }

    package func stopServer(mode: ShutdownMode = .fast) throws {
        try pgCtl("stop", ["-m", mode.rawValue])
    }

    /// Starts the server again after ``stopServer(mode:)`` and waits until it accepts connections.
    package func resume() throws {
        try pgCtl("start", ["-l", logFile, "-o", serverOptions])
    }

    /// Stops the server (like `-m immediate`) and deletes the directory. Idempotent.
    /// Uses signals rather than pg_ctl, so it is safe to call from an atexit handler.
    package func stop() {
        let (wasRemoved, watchdogPID) = lifecycle.withLock { state in
            defer { state.isRemoved = true }
            return (state.isRemoved, state.watchdogPID)
        }
        guard !wasRemoved else { return }
        TemporaryPostgresRegistry.remove(self)
        if let watchdogPID { kill(watchdogPID, SIGKILL) }
        quitPostmaster()
        try? FileManager.default.removeItem(atPath: rootDirectory)
    }

    private func pgCtl(_ action: String, _ arguments: [String]) throws {
        guard !lifecycle.withLock({ $0.isRemoved }) else {
            throw TemporaryPostgresError(description: "cannot \(action) PostgreSQL: the cluster was already removed")
        }
        do {
            try tools.run("pg_ctl", [action, "-w", "-t", "60", "-D", dataDirectory] + arguments, in: rootDirectory)
        } catch {
            throw TemporaryPostgresError(
                description:
                    "pg_ctl \(action) failed for \(dataDirectory): \(error)\n--- server log (tail) ---\n\(logTail())"
            )
        }
    }

    /// SIGQUIT is PostgreSQL's immediate shutdown; the postmaster removes its pid file once it is gone.
    private func quitPostmaster() {
        let pidFile = dataDirectory + "/postmaster.pid"
        guard let contents = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let firstLine = contents.split(separator: "\n").first,
            let pid = pid_t(firstLine.trimmingCharacters(in: .whitespaces)), pid > 0
        else { return }
        kill(pid, SIGQUIT)
        let deadline = Date().addingTimeInterval(10)
        while FileManager.default.fileExists(atPath: pidFile), Date() < deadline { usleep(20_000) }
        if FileManager.default.fileExists(atPath: pidFile) { kill(pid, SIGKILL) }
    }

    private func logTail(lines: Int = 40) -> String {
        guard let log = try? String(contentsOfFile: logFile, encoding: .utf8) else { return "(no server log)" }
        return log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Every cluster this process started and has not stopped yet, so that exit() can stop them.
enum TemporaryPostgresRegistry {
    private struct Entries {
        var clusters: [ObjectIdentifier: TemporaryPostgres] = [:]
        var isExitHandlerInstalled = false
    }

    private static let entries = Mutex(Entries())

    static func add(_ cluster: TemporaryPostgres) {
        entries.withLock { entries in
            entries.clusters[ObjectIdentifier(cluster)] = cluster
            guard !entries.isExitHandlerInstalled else { return }
            entries.isExitHandlerInstalled = true
            atexit { TemporaryPostgresRegistry.stopAll() }
        }
    }

    static func remove(_ cluster: TemporaryPostgres) {
        _ = entries.withLock { $0.clusters.removeValue(forKey: ObjectIdentifier(cluster)) }
    }

    /// Stops outside the lock: stop() calls remove(), which takes it again.
    private static func stopAll() {
        let remaining = entries.withLock { entries in
            defer { entries.clusters.removeAll() }
            return Array(entries.clusters.values)
        }
        remaining.forEach { $0.stop() }
    }
}

/// A failure to set up, start or stop a ``TemporaryPostgres``; includes command output or the server log.
package struct TemporaryPostgresError: Error, CustomStringConvertible {
    /// What went wrong, with the captured output or the tail of the server log.
    package var description: String
}
