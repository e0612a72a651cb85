import FakeAppStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `receiptd run` child process, started with `posix_spawn` so it can be killed and reaped precisely.
final class DaemonProcess {
    let pid: pid_t
    private let startedAt = ContinuousClock.now
    private(set) var exitStatus: Int32?
    /// True once this tool killed it on purpose.
    private(set) var killedOnPurpose = false

    /// Starts `executable run` with `environment`, its output appended to `logPath`.
    init(executable: String, environment: [String: String], logPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let arguments = [executable, "run"]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        // The spawning process runs ServiceLifecycle/Dispatch, which block some signals; a child must
        // start with none blocked and default handlers, or SIGTERM and SIGALRM would not reach it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGALRM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard status == 0 else {
            throw ToolError("could not start \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    /// The environment of a daemon pointed at `database` and the stand-in: this process's own, quiet logs,
    /// no metrics endpoint (several daemons share the host), a short shutdown grace, then `overrides`.
    static func environment(database: String, standIn: AppStoreStandIn, overrides: [String: String]) -> [String: String]
    {
        var environment = ProcessInfo.processInfo.environment
        environment.merge([
            "DATABASE_URL": database, "APPLE_VERIFY_URL": standIn.productionURL,
            "APPLE_SANDBOX_VERIFY_URL": standIn.sandboxURL,
            "APPLE_BUNDLE_ID": SyntheticReceipt.defaultBundleID,
            "RECEIPTD_LOG_LEVEL": "warning", "RECEIPTD_METRICS_ADDR": "", "RECEIPTD_SHUTDOWN_GRACE": "2",
        ]) { $1 }
        environment.merge(overrides) { $1 }
        return environment
    }

    /// True until the process has exited and been reaped.
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// True when the process ended by itself with a non-zero status or a signal we did not send.
    var crashed: Bool {
        guard !killedOnPurpose, let exitStatus else { return false }
        return exitStatus != 0
    }

    /// SIGKILL: the daemon gets no chance to clean up.
    func kill9() {
        killedOnPurpose = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = status
    }

    /// SIGTERM, then waits up to `timeout` for a graceful exit; returns the exit code, or nil if it had to be killed.
    func terminate(timeout: Duration) async -> Int32? {
        guard isRunning else { return exitStatus.map(Self.exitCode) }
        // A process spawned a moment ago may not have its signal handlers yet; SIGTERM would just kill it.
        let settled = startedAt + .seconds(2)
        if ContinuousClock.now < settled { try? await Task.sleep(until: settled) }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !isRunning { return exitStatus.map(Self.exitCode) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill9()
        return nil
    }

    /// The exit code of a `waitpid` status that ended normally, or 128 + signal.
    static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
