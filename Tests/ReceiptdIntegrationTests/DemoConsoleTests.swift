import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `receiptd demo --console`, the real binary: the demo's outcomes, then the console on its throwaway database
/// for the user and password it prints, until Ctrl-C, which stops it and removes the database.
@Suite struct DemoConsoleTests {
    /// The value after `label` on a line of `output` that starts with it.
    private func value(_ label: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(label) }.map {
            String($0.dropFirst(label.count)).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func theDemoServesTheConsoleToThePrintedUserUntilCtrlCAndThenLeavesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = ["out", "err"].map { folder.appendingPathComponent($0) }
        for path in paths { try Data().write(to: path) }
        let process = Process()
        process.executableURL = try ReceiptdBinary.location()
        process.arguments = ["demo", "--console"]
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: paths[0])
        process.standardError = try FileHandle(forWritingTo: paths[1])
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let output = { String(decoding: (try? Data(contentsOf: paths[0])) ?? Data(), as: UTF8.self) }

        // The demo runs first (half a minute or more on a loaded machine), then the console says where it is.
        let deadline = ContinuousClock.now + .seconds(300)
        while process.isRunning && !output().contains("Press Ctrl-C") && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let printed = output()
        let errors = String(decoding: (try? Data(contentsOf: paths[1])) ?? Data(), as: UTF8.self)
        try #require(printed.contains("Press Ctrl-C"), "\(printed)\n\(errors.suffix(2000))")
        // The demo's own report came first, as without --console.
        let ledger = try #require(printed.range(of: "Ledger: "))
        let console = try #require(printed.range(of: "Console: http://"))
        #expect(ledger.lowerBound < console.lowerBound)
        let address = try #require(value("Console:", in: printed))
        #expect(address.hasPrefix("http://127.0.0.1:"))
        #expect(value("Sign in as:", in: printed) == "demo")
        let password = try #require(value("Password:", in: printed))
        #expect(password.count == 20)
        #expect(value("Database login:", in: printed) == "receiptd_console_demo")
        let dataDirectory = try #require(value("Throwaway PostgreSQL:", in: printed))
        let usersFile = try #require(value("Users file:", in: printed))
        #expect(FileManager.default.fileExists(atPath: dataDirectory))
        let users = try String(contentsOfFile: usersFile, encoding: .utf8)
        #expect(users.hasPrefix("demo:$2b$10$") && !users.contains(password))

        // Signing in with what it printed: a session cookie without Secure (plain http on loopback).
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let base = address.hasSuffix("/") ? String(address.dropLast()) : address
            let page = try await client.execute(HTTPClientRequest(url: base + "/signin"), timeout: .seconds(10))
            let form = String(buffer: try await page.body.collect(upTo: 1 << 20))
            #expect(page.status.code == 200 && form.contains("id=\"signin-form\""))

            var wrong = HTTPClientRequest(url: base + "/signin")
            wrong.method = .POST
            wrong.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            wrong.body = .bytes(ByteBuffer(string: "name=demo&password=not-\(password)"))
            let refused = try await client.execute(wrong, timeout: .seconds(30))
            _ = try await refused.body.collect(upTo: 1 << 20)
            #expect(refused.status.code == 401)

            var signIn = HTTPClientRequest(url: base + "/signin")
            signIn.method = .POST
            signIn.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            signIn.body = .bytes(ByteBuffer(string: "name=demo&password=\(password)"))
            let signedIn = try await client.execute(signIn, timeout: .seconds(30))
            _ = try await signedIn.body.collect(upTo: 1 << 20)
            #expect(signedIn.status.code == 303)
            let cookie = try #require(signedIn.headers["Set-Cookie"].first { $0.hasPrefix("receiptd_console=") })
            #expect(cookie.contains("HttpOnly") && !cookie.contains("Secure"))

            var overview = HTTPClientRequest(url: base + "/")
            overview.headers.add(name: "Cookie", value: String(cookie.prefix { $0 != ";" }))
            let answer = try await client.execute(overview, timeout: .seconds(30))
            _ = try await answer.body.collect(upTo: 4 << 20)
            #expect(answer.status.code == 200)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }

        // Ctrl-C: the console stops, the throwaway PostgreSQL is removed, and the demo exits 0.
        process.interrupt()
        let stopDeadline = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(output().suffix(2000))")
        #expect(output().contains("Console stopped."))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory))
        #expect(!FileManager.default.fileExists(atPath: usersFile))
    }
}
