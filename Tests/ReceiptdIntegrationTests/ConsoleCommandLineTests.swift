import AsyncHTTPClient
import Foundation
import HummingbirdBcrypt
import NIOCore
import ReceiptdConsole
import Testing

/// `receiptd console` and `receiptd console add-user` as a shell sees them.
@Suite struct ConsoleCommandLineTests {
    /// Made once with `htpasswd -nbB -C 4 alice secret`.
    static let htpasswdLine = "alice:$2y$04$ncq3Qq75DD7e8exjayP4gOYwhnTLKysWcVRO4fDQtlEJFi0YN0SXm"

    /// A fresh folder, removed afterwards.
    private func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test func settingsErrorsExit78NamingTheVariableAndLineButNotTheHash() async throws {
        try await withFolder { folder in
            let missing = try ReceiptdBinary.run(["console"], environment: ["RECEIPTD_CONSOLE_USERS_FILE": ""])
            #expect(missing.status == 78 && missing.stderr.contains("RECEIPTD_CONSOLE_USERS_FILE"), "\(missing.stderr)")

            let absent = folder.appendingPathComponent("absent").path
            let unreadable = try ReceiptdBinary.run(["console", "--users-file", absent])
            #expect(unreadable.status == 78 && unreadable.stderr.contains("RECEIPTD_CONSOLE_USERS_FILE"))

            let malformed = folder.appendingPathComponent("users")
            let badHash = "$2y$04$tooShort0123456789"
            try Data("# users\n\(Self.htpasswdLine)\nbob:\(badHash)\n".utf8).write(to: malformed)
            let run = try ReceiptdBinary.run(["console"], environment: ["RECEIPTD_CONSOLE_USERS_FILE": malformed.path])
            #expect(run.status == 78, "\(run.stderr)")
            #expect(run.stderr.contains("RECEIPTD_CONSOLE_USERS_FILE") && run.stderr.contains("line 3"))
            #expect(!run.stderr.contains("tooShort") && !run.stderr.contains("ncq3Qq75"))

            let empty = folder.appendingPathComponent("empty")
            try Data("\n# nobody\n".utf8).write(to: empty)
            let none = try ReceiptdBinary.run(["console"], environment: ["RECEIPTD_CONSOLE_USERS_FILE": empty.path])
            #expect(none.status == 78 && none.stderr.contains("no users"))

            let good = folder.appendingPathComponent("good")
            try Data((Self.htpasswdLine + "\n").utf8).write(to: good)
            for (variable, value) in [
                ("RECEIPTD_CONSOLE_ADDR", "nowhere"), ("RECEIPTD_CONSOLE_INSECURE_COOKIES", "yes"),
            ] {
                let bad = try ReceiptdBinary.run(
                    ["console"],
                    environment: ["RECEIPTD_CONSOLE_USERS_FILE": good.path, variable: value]
                )
                #expect(bad.status == 78 && bad.stderr.contains(variable), "\(bad.stderr)")
            }
        }
    }

    @Test func addUserStoresNamesInNFCAndRefusesAnotherSpellingOfOne() async throws {
        try await withFolder { folder in
            let file = folder.appendingPathComponent("users").path
            let environment = ["RECEIPTD_CONSOLE_USERS_FILE": file]
            // KELVIN SIGN + "ate": NFC makes it "Kate".
            let added = try ReceiptdBinary.run(
                ["console", "add-user", "\u{212A}ate", "--password-stdin"],
                stdin: "pw\n",
                environment: environment
            )
            #expect(added.status == 0, "\(added.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(Array(text.utf8.prefix(5)) == Array("Kate:".utf8), "stored in NFC")
            let again = try ReceiptdBinary.run(
                ["console", "add-user", "Kate", "--password-stdin"],
                stdin: "pw\n",
                environment: environment
            )
            #expect(again.status == 1 && again.stderr.contains("already"), "\(again.stderr)")
            #expect(try ConsoleUsersFile.load(path: file).count == 1)
        }
    }

    @Test func addUserAppendsAVerifiableLineAndRefusesDuplicatesAndBadNames() async throws {
        try await withFolder { folder in
            let file = folder.appendingPathComponent("users").path
            let environment = ["RECEIPTD_CONSOLE_USERS_FILE": file]
            let added = try ReceiptdBinary.run(
                ["console", "add-user", "alice", "--password-stdin"],
                stdin: "s3cret pass\nignored second line\n",
                environment: environment
            )
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout == "added user alice (operator) to \(file)\n")
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600)

            let viewer = try ReceiptdBinary.run(
                ["console", "add-user", "victor", "--viewer", "--password-stdin", "--users-file", file],
                stdin: "other"
            )
            #expect(viewer.status == 0 && viewer.stdout.contains("victor (viewer)"), "\(viewer.stderr)")

            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0].hasPrefix("alice:$2b$12$") && lines[1].hasSuffix(":viewer"))
            let users = try ConsoleUsersFile.load(path: file)
            #expect(users.map(\.name) == ["alice", "victor"] && users.map(\.role) == [.operator, .viewer])
            #expect(Bcrypt.verify("s3cret pass", hash: users[0].passwordHash))
            #expect(!Bcrypt.verify("ignored second line", hash: users[0].passwordHash))

            let duplicate = try ReceiptdBinary.run(
                ["console", "add-user", "alice", "--password-stdin"],
                stdin: "again\n",
                environment: environment
            )
            #expect(duplicate.status == 1 && duplicate.stderr.contains("already"), "\(duplicate.stderr)")
            for (name, stdin) in [("al:ice", "pw\n"), ("al ice", "pw\n"), ("bob", "\n"), ("bob", "")] {
                let refused = try ReceiptdBinary.run(
                    ["console", "add-user", name, "--password-stdin"],
                    stdin: stdin,
                    environment: environment
                )
                #expect(refused.status == 1 && !refused.stderr.isEmpty, "\(name): \(refused.stderr)")
            }
            let notATerminal = try ReceiptdBinary.run(["console", "add-user", "bob"], environment: environment)
            #expect(notATerminal.status == 1 && notATerminal.stderr.contains("--password-stdin"))
            #expect(try ConsoleUsersFile.load(path: file).count == 2)

            let nowhere = try ReceiptdBinary.run(
                ["console", "add-user", "bob", "--password-stdin"],
                stdin: "pw\n",
                environment: ["RECEIPTD_CONSOLE_USERS_FILE": ""]
            )
            #expect(nowhere.status == 78 && nowhere.stderr.contains("RECEIPTD_CONSOLE_USERS_FILE"))
        }
    }

    @Test func theConsoleServesUntilSIGTERMAndSignsInAnHtpasswdUser() async throws {
        try await Fixture.with { f in
            try await withFolder { folder in
                let users = folder.appendingPathComponent("users")
                try Data((Self.htpasswdLine + "\n").utf8).write(to: users)
                let log = folder.appendingPathComponent("log")
                try Data().write(to: log)
                let process = Process()
                process.executableURL = try ReceiptdBinary.location()
                process.arguments = ["console"]
                var environment = ProcessInfo.processInfo.environment
                environment["DATABASE_URL"] = try await f.loginRole(in: "receiptd_operator")
                environment["RECEIPTD_CONSOLE_USERS_FILE"] = users.path
                environment["RECEIPTD_CONSOLE_ADDR"] = "127.0.0.1:0"
                environment["RECEIPTD_CONSOLE_INSECURE_COOKIES"] = "1"
                environment["RECEIPTD_LOG_FORMAT"] = "text"
                process.environment = environment
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = try FileHandle(forWritingTo: log)
                try process.run()
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

                let prefix = "receiptd console listening on http://127.0.0.1:"
                var port: Int?
                let deadline = ContinuousClock.now + .seconds(30)
                while port == nil && process.isRunning && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(100))
                    let text = try String(contentsOf: log, encoding: .utf8)
                    port = text.range(of: prefix).flatMap { Int(text[$0.upperBound...].prefix { $0.isNumber }) }
                }
                let output = try String(contentsOf: log, encoding: .utf8)
                let bound = try #require(port, "\(output)")

                var request = HTTPClientRequest(url: "http://127.0.0.1:\(bound)/signin")
                request.method = .POST
                request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: "name=alice&password=secret"))
                let client = HTTPClient(
                    eventLoopGroupProvider: .singleton,
                    configuration: .init(redirectConfiguration: .disallow)
                )
                let response = try await client.execute(request, timeout: .seconds(30))
                try await client.shutdown()
                #expect(response.status.code == 303)
                let cookie = try #require(response.headers.first(name: "set-cookie"))
                #expect(cookie.contains("HttpOnly") && !cookie.contains("Secure"))

                process.terminate()
                let stop = ContinuousClock.now + .seconds(15)
                while process.isRunning && ContinuousClock.now < stop { try await Task.sleep(for: .milliseconds(50)) }
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                let logged = try String(contentsOf: log, encoding: .utf8)
                #expect(logged.contains("console sign-in") && logged.contains("alice"))
                #expect(!logged.contains("secret") && !logged.contains("$2"))
            }
        }
    }
}
