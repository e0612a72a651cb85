import Foundation
import Testing

extension ReceiptdBinary {
    /// Runs `receiptd run` with exactly `environment` for `duration`, then sends SIGTERM and waits for it to
    /// exit (SIGKILL after 15 s). Output goes to temporary files, so no pipe can fill up.
    static func runDaemon(environment: [String: String], for duration: Duration) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = ["out", "err"].map { folder.appendingPathComponent($0) }
        for path in paths { try Data().write(to: path) }

        let process = Process()
        process.executableURL = try location()
        process.arguments = ["run"]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: paths[0])
        process.standardError = try FileHandle(forWritingTo: paths[1])
        try process.run()
        try await Task.sleep(for: duration)
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(15)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: paths[0]), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: paths[1]), as: UTF8.self)
        )
    }

    /// Starts `receiptd run` with exactly `environment`, its output discarded (or its stderr written to `log`), for a
    /// test that kills it.
    static func startDaemon(environment: [String: String], log: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = try location()
        process.arguments = ["run"]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let log {
            try Data().write(to: log)
            process.standardError = try FileHandle(forWritingTo: log)
        }
        try process.run()
        return process
    }
}
