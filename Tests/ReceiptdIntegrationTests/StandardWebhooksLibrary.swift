import Foundation
import Testing

/// Python's `standardwebhooks` package, run as `python3 -c`.
enum StandardWebhooksLibrary {
    /// Whether `python3` can import it.
    static let isInstalled: Bool = (try? run(["-c", "import standardwebhooks.webhooks"]))?.status == 0

    /// Whether its tests run: installed, or under CI (where a missing package must fail, not skip).
    static var runs: Bool { isInstalled || ProcessInfo.processInfo.environment["CI"] != nil }

    /// Why its tests were skipped.
    static let skipReason: Comment =
        "python3's standardwebhooks package is not installed (python3 -m pip install standardwebhooks); skipped outside CI"

    /// Fails the test when the package is missing (only reached under CI).
    static func requireInstalled() throws {
        try #require(
            isInstalled,
            "CI is set but python3 cannot import standardwebhooks: .ci/run installs it with pip"
        )
    }

    private static let script = """
        import json, sys
        from datetime import datetime, timezone
        from standardwebhooks.webhooks import Webhook
        case = json.loads(sys.argv[1])
        if case["action"] == "sign":
            when = datetime.fromtimestamp(case["timestamp"], tz=timezone.utc)
            print(Webhook(case["secret"]).sign(case["id"], when, case["body"]))
        else:
            try:
                Webhook(case["secret"]).verify(case["body"], case["headers"])
                print("verified")
            except Exception as error:
                print("refused: %s" % error)
        """

    /// `Webhook(secret).verify(body, headers)`: "verified", or "refused: why".
    static func verify(secret: String, body: String, headers: [String: String]) throws -> String {
        try call(["action": "verify", "secret": secret, "body": body, "headers": headers])
    }

    /// `Webhook(secret).sign(id, timestamp, body)`.
    static func sign(secret: String, id: String, timestamp: Int64, body: String) throws -> String {
        try call(["action": "sign", "secret": secret, "id": id, "timestamp": Int(timestamp), "body": body])
    }

    private static func call(_ input: [String: Any]) throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let result = try run(["-c", script, json])
        try #require(result.status == 0, "python3 failed: \(result.output)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `python3 arguments…`; output through a file, so no pipe can fill up.
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-python-\(UUID().uuidString)")
        try Data().write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.standardInput = FileHandle.nullDevice
        let output = try FileHandle(forWritingTo: path)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: path), as: UTF8.self))
    }
}
