import Foundation

/// The daemon processes of a chaos run: restarts the ones that died and counts what happened.
struct DaemonFleet {
    private var processes: [DaemonProcess] = []
    private let executable: String
    private let environment: [String: String]
    private let logDirectory: String
    private var started = 0
    /// SIGKILLs sent.
    private(set) var kills = 0
    /// Daemons that exited without being told to.
    private(set) var crashes = 0
    /// The pids of the daemons SIGKILLed.
    private(set) var killedPIDs: [pid_t] = []

    init(size: Int, executable: String, environment: [String: String], logDirectory: String) throws {
        self.executable = executable
        self.environment = environment
        self.logDirectory = logDirectory
        for _ in 0..<size { processes.append(try spawn()) }
    }

    private mutating func spawn() throws -> DaemonProcess {
        started += 1
        return try DaemonProcess(
            executable: executable,
            environment: environment,
            logPath: "\(logDirectory)/daemon-\(started).log"
        )
    }

    /// Replaces daemons that exited on their own, counting each as a crash.
    mutating func restartCrashed() throws {
        for index in processes.indices where !processes[index].isRunning {
            if processes[index].crashed { crashes += 1 }
            processes[index] = try spawn()
        }
    }

    /// SIGKILLs a random daemon and starts a new one in its place.
    mutating func killOneAndRestart() throws {
        guard let index = processes.indices.randomElement() else { return }
        processes[index].kill9()
        kills += 1
        killedPIDs.append(processes[index].pid)
        processes[index] = try spawn()
    }

    /// SIGTERMs every daemon and returns their exit codes (nil for one that had to be killed).
    mutating func terminateAll() async -> [Int32?] {
        var codes: [Int32?] = []
        for process in processes {
            if !process.isRunning, process.crashed { crashes += 1 }
            codes.append(await process.terminate(timeout: .seconds(10)))
        }
        return codes
    }
}
