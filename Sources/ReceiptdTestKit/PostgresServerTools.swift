import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the PostgreSQL server programs live and which OS account runs them.
struct PostgresServerTools: Sendable {
    /// The OS account the server runs as when we are root.
    struct Account: Sendable {
        let uid: uid_t
        let gid: gid_t
    }

    /// Folder holding `initdb`, `pg_ctl` and `postgres`.
    let binDirectory: String
    /// Set when we are root: PostgreSQL refuses to run as root, so it runs as `postgres`.
    let serverAccount: Account?
    /// `runuser`, used to switch to ``serverAccount``.
    let runuserPath: String?

    /// Finds the server programs and, when running as root, the `postgres` account.
    static func locate() throws -> PostgresServerTools {
        let binDirectory = try findBinDirectory()
        guard geteuid() == 0 else {
            return PostgresServerTools(binDirectory: binDirectory, serverAccount: nil, runuserPath: nil)
        }
        let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
            .first(where: FileManager.default.isExecutableFile(atPath:))
        guard let runuser else {
            throw TemporaryPostgresError(description: "running as root, but `runuser` is missing (util-linux)")
        }
        return PostgresServerTools(
            binDirectory: binDirectory,
            serverAccount: try postgresAccount(),
            runuserPath: runuser
        )
    }

    /// Runs a server program such as `initdb` or `pg_ctl`, as `postgres` when we are root.
    ///
    /// Foundation's Process on Linux notices that a child exited only once every holder of a socket
    /// it leaks into the child has closed it (swift-corelibs-foundation#4795). A postmaster started by
    /// pg_ctl would keep it open and hang `waitUntilExit` for the server's lifetime, so a bash
    /// subshell closes every descriptor above stderr before exec'ing the program, while its parent
    /// bash keeps the socket until the program is done.
    @discardableResult
    func run(_ program: String, _ arguments: [String], in directory: String) throws -> String {
        let closeInheritedDescriptors = """
            ( for fd in /proc/self/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@" )
            """
        let command = ["/bin/bash", "-c", closeInheritedDescriptors, program, binDirectory + "/" + program] + arguments
        let displayed = ([program] + arguments).joined(separator: " ")
        guard let runuserPath else {
            return try ProcessRunner.run(
                command[0],
                Array(command.dropFirst()),
                workingDirectory: directory,
                displayedCommand: displayed
            )
        }
        return try ProcessRunner.run(
            runuserPath,
            ["-u", "postgres", "--"] + command,
            workingDirectory: directory,
            displayedCommand: displayed
        )
    }

    /// Gives `path` to the server account so the server can write there (no-op when not root).
    func handOver(_ path: String) throws {
        guard let account = serverAccount else { return }
        guard chown(path, account.uid, account.gid) == 0 else {
            throw TemporaryPostgresError(
                description: "chown \(path) to postgres failed: \(String(cString: strerror(errno)))"
            )
        }
    }

    /// Creates the cluster's private directory, with a `socket` folder, owned by the server account.
    /// It lives in /tmp rather than $TMPDIR because unix socket paths are limited to ~100 bytes.
    func makeWorkspace() throws -> String {
        var template = Array("/tmp/receiptd-pg.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TemporaryPostgresError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let rootDirectory = String(cString: created)
        do {
            try FileManager.default.createDirectory(
                atPath: rootDirectory + "/socket",
                withIntermediateDirectories: false
            )
            try handOver(rootDirectory)
            try handOver(rootDirectory + "/socket")
        } catch {
            try? FileManager.default.removeItem(atPath: rootDirectory)
            throw error
        }
        return rootDirectory
    }

    /// atexit handlers do not run when a test process crashes, so a shell script watches this
    /// process and, once it is gone, quits the postmaster and deletes `rootDirectory`.
    /// Returns the script's pid; kill it when cleaning up normally.
    func launchWatchdog(cleaningUp rootDirectory: String) throws -> pid_t {
        let script = """
            trap '' HUP INT TERM
            while kill -0 "$1" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "/proc/$1/status"; do sleep 1; done
            pid=$(head -n 1 "$2/data/postmaster.pid" 2>/dev/null) && kill -QUIT "$pid" 2>/dev/null
            i=0; while [ -e "$2/data/postmaster.pid" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
            rm -rf "$2"
            """
        return try ProcessRunner.launchInBackground(
            "/bin/sh",
            ["-c", script, "receiptd-pg-watchdog", String(getpid()), rootDirectory]
        )
    }

    /// `RECEIPTD_PG_BINDIR`, else `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
    private static func findBinDirectory() throws -> String {
        if let configured = ProcessInfo.processInfo.environment["RECEIPTD_PG_BINDIR"], !configured.isEmpty {
            guard hasInitdb(configured) else {
                throw TemporaryPostgresError(description: "RECEIPTD_PG_BINDIR=\(configured) contains no initdb")
            }
            return configured
        }
        // Debian's pg_config comes with libpq-dev and may name a bindir whose server package is
        // not installed, so its answer is checked like any other candidate.
        if let reported = try? ProcessRunner.run("/usr/bin/env", ["pg_config", "--bindir"]) {
            let trimmed = reported.trimmingCharacters(in: .whitespacesAndNewlines)
            if hasInitdb(trimmed) { return trimmed }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newestFirst = versions.compactMap { Int($0) }.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        if let found = newestFirst.first(where: hasInitdb) { return found }
        throw TemporaryPostgresError(
            description: "PostgreSQL server programs (initdb, pg_ctl) not found; install them with "
                + "`apt-get install postgresql` or point RECEIPTD_PG_BINDIR at their folder"
        )
    }

    private static func hasInitdb(_ directory: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: directory + "/initdb")
    }

    private static func postgresAccount() throws -> Account {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        let bufferSize = 16_384
        var buffer = [CChar](repeating: 0, count: bufferSize)
        let status = getpwnam_r("postgres", &entry, &buffer, bufferSize, &found)
        guard status == 0, found != nil else {
            throw TemporaryPostgresError(
                description: "running as root, but there is no `postgres` OS user to run the server as "
                    + "(`apt-get install postgresql` creates it)"
            )
        }
        return Account(uid: entry.pw_uid, gid: entry.pw_gid)
    }
}
