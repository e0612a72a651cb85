import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program started as the leader of a process group of its own, so that stopping it stops every process it
/// started too (chromedriver's chromium and chromium's helpers), with a watchdog that stops the group should the
/// test process die first. Nothing is left running after ``stop(grace:)``, whether the test passed or not.
package final class ProcessGroup: Sendable {
    /// The leader's pid, which is also the group's id.
    package let pid: pid_t
    private let watchdogPID: pid_t?
    private let state = Mutex(State.running)

    private enum State {
        case running
        case exited(Int32)
        case stopped
    }

    private init(pid: pid_t, watchdogPID: pid_t?) {
        self.pid = pid
        self.watchdogPID = watchdogPID
    }

    /// Starts `executablePath` with `arguments` in a new process group, its standard input from /dev/null and its
    /// output (stdout and stderr) appended to `outputPath`.
    package static func launch(
        _ executablePath: String,
        _ arguments: [String],
        outputPath: String
    ) throws -> ProcessGroup {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // pgroup 0: the child's own pid becomes its group's id.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours leaks into the browser: a pipe's write end held by chromium would keep whoever reads
        // that pipe waiting for its end.
        for descriptor in openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        let argv = ([executablePath] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executablePath, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw TemporaryPostgresError(
                description: "could not launch \(executablePath): \(String(cString: strerror(spawned)))"
            )
        }
        let watchdogPID = try? launchWatchdog(group: pid)
        return ProcessGroup(pid: pid, watchdogPID: watchdogPID)
    }

    /// This process's open file descriptors (from /proc/self/fd; none where there is no /proc).
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    /// A shell that waits for this test process to end (or become a zombie), then stops the group: a crashed or
    /// killed test run leaves no browser behind.
    private static func launchWatchdog(group: pid_t) throws -> pid_t {
        let script = """
            trap '' HUP INT TERM
            while kill -0 "$1" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "/proc/$1/status"; do sleep 1; done
            kill -TERM -- "-$2" 2>/dev/null; sleep 2; kill -KILL -- "-$2" 2>/dev/null
            """
        return try ProcessRunner.launchInBackground(
            "/bin/sh",
            ["-c", script, "receiptd-browser-watchdog", String(getpid()), String(group)]
        )
    }

    /// Whether the leader still runs (it is reaped once it has exited).
    package var isRunning: Bool {
        state.withLock { state in
            guard case .running = state else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                state = .exited(status)
                return false
            }
            return true
        }
    }

    /// The group's members that still live (zombies awaiting their parent excluded), read from /proc.
    package var livingMembers: [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { candidate in
            // /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && fields[0] != "X" && pid_t(fields[2]) == pid
        }
    }

    /// Stops the whole group: SIGTERM, then SIGKILL to whatever is left after `grace`; reaps the leader.
    /// Idempotent.
    package func stop(grace: Duration = .seconds(3)) {
        let wasRunning = state.withLock { state -> Bool in
            defer { state = .stopped }
            if case .stopped = state { return false }
            return true
        }
        guard wasRunning else { return }
        if let watchdogPID { kill(watchdogPID, SIGKILL) }
        kill(-pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        var leaderReaped = false
        while ContinuousClock.now < deadline {
            if !leaderReaped {
                var status: Int32 = 0
                let reaped = waitpid(pid, &status, WNOHANG)
                leaderReaped = reaped == pid || (reaped == -1 && errno == ECHILD)
            }
            if leaderReaped && livingMembers.isEmpty { break }
            usleep(50_000)
        }
        kill(-pid, SIGKILL)
        if !leaderReaped {
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }
}
