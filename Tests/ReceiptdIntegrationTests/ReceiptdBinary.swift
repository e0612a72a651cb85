import Foundation
import Testing

/// The built `receiptd` executable, run as an operator would run it.
enum ReceiptdBinary {
    /// What one run printed and how it exited.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `receiptd` next to the test bundle (`swift build --build-tests` builds both into the same folder).
    static func location() throws -> URL {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            bundleFolder.appendingPathComponent("receiptd"),
            packageRoot.appendingPathComponent(".build/debug/receiptd"),
        ]
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "receiptd binary not found; run `swift build --build-tests` first"
        )
    }

    /// Runs `receiptd arguments…` with `stdin`, with output going to temporary files so no pipe can fill up.
    /// `DATABASE_URL` is cleared unless `environment`, laid over this process's own, sets it.
    static func run(
        _ arguments: [String],
        stdin: String = "",
        environment overrides: [String: String] = [:]
    ) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = ["in", "out", "err"].map { folder.appendingPathComponent($0) }
        try Data(stdin.utf8).write(to: paths[0])
        try Data().write(to: paths[1])
        try Data().write(to: paths[2])

        let process = Process()
        process.executableURL = try location()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        environment["APPLE_BUNDLE_ID"] = nil
        environment.merge(overrides) { $1 }
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: paths[0])
        process.standardOutput = try FileHandle(forWritingTo: paths[1])
        process.standardError = try FileHandle(forWritingTo: paths[2])
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: paths[1]), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: paths[2]), as: UTF8.self)
        )
    }
}
