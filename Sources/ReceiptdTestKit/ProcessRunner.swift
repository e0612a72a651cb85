import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs helper programs (initdb, pg_ctl, pg_config) for ``TemporaryPostgres``.
package enum ProcessRunner {
    /// Runs `executablePath` to completion and returns its combined stdout and stderr.
    /// Throws a ``TemporaryPostgresError`` carrying that output if it exits non-zero; the error names
    /// the command as `displayedCommand` when given, to hide wrapper noise.
    ///
    /// Output goes to a temporary file, not a pipe: pg_ctl leaves a postmaster running, and any
    /// long-lived process that inherits a pipe's write end (ours or one launched concurrently
    /// on another thread) would make reading the pipe to its end hang forever.
    @discardableResult
    package static func run(
        _ executablePath: String,
        _ arguments: [String],
        workingDirectory: String? = nil,
        displayedCommand: String? = nil
    ) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("receiptd-process-\(UUID().uuidString).out").path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else {
            throw TemporaryPostgresError(description: "could not create a capture file at \(outputPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }

        let process = makeProcess(executablePath, arguments, workingDirectory: workingDirectory)
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            try? output.close()
            throw TemporaryPostgresError(description: "could not launch \(executablePath): \(error)")
        }
        process.waitUntilExit()
        try? output.close()

        let captured = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exited with status" : "was killed by signal"
            let commandLine = displayedCommand ?? ([executablePath] + arguments).joined(separator: " ")
            throw TemporaryPostgresError(
                description: "`\(commandLine)` \(how) \(process.terminationStatus):\n\(captured)"
            )
        }
        return captured
    }

    /// Starts `executablePath` in the background with its output discarded and returns its pid.
    /// The caller owns the process from then on (signal it with `kill`).
    static func launchInBackground(_ executablePath: String, _ arguments: [String]) throws -> pid_t {
        let process = makeProcess(executablePath, arguments, workingDirectory: "/")
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TemporaryPostgresError(description: "could not launch \(executablePath): \(error)")
        }
        return process.processIdentifier
    }

    private static func makeProcess(
        _ executablePath: String,
        _ arguments: [String],
        workingDirectory: String?
    ) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        if let workingDirectory {
            // The server programs run as `postgres`, which may not be allowed into our cwd (e.g. /root).
            process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        }
        return process
    }
}
