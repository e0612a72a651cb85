import Foundation
import ReceiptdCore
import Testing

@testable import ReceiptdConsole

/// `RECEIPTD_CONSOLE_USERS_FILE`: htpasswd's bcrypt lines, the viewer field, and errors by line without the hash.
@Suite struct ConsoleUsersFileTests {
    /// Made once with `htpasswd -nbB -C 4 alice secret`.
    static let htpasswdLine = "alice:$2y$04$ncq3Qq75DD7e8exjayP4gOYwhnTLKysWcVRO4fDQtlEJFi0YN0SXm"
    static let hash = String(htpasswdLine.dropFirst("alice:".count))

    @Test func htpasswdsHashIsReadAsTwoBAndVerifies() async throws {
        let users = try ConsoleUsersFile.parse(Self.htpasswdLine + "\n", path: "users")
        #expect(users == [ConsoleUser(name: "alice", passwordHash: "$2b$" + Self.hash.dropFirst(4), role: .operator)])
        let authentication = ConsoleAuthentication(settings: ConsoleSettings(), users: users)
        guard case .signedIn(let session) = await authentication.signIn(name: "alice", password: "secret") else {
            Issue.record("htpasswd's line did not sign alice in")
            return
        }
        #expect(session.user == "alice" && session.role == .operator)
        #expect(await authentication.signIn(name: "alice", password: "Secret") == .refused)
    }

    @Test func viewersCommentsBlankLinesAndOtherPrefixes() throws {
        let twoA = "$2a$" + Self.hash.dropFirst(4)
        let twoB = "$2b$" + Self.hash.dropFirst(4)
        let text = "# console users\n\n  bob:\(twoA):viewer  \r\ncarol:\(twoB)\n   # indented comment\n"
        let users = try ConsoleUsersFile.parse(text, path: "users")
        #expect(users.map(\.name) == ["bob", "carol"])
        #expect(users.map(\.role) == [.viewer, .operator])
        #expect(users.map(\.passwordHash) == [twoA, twoB])
    }

    @Test(arguments: [
        ("alice:\(hash)\nalice:\(hash)", 2, "already on line 1"),
        ("alice:\(hash)\n\n:\(hash)", 3, "the name is empty"),
        ("# header\nalice:\(hash):admin", 2, "the third field may only be viewer"),
        ("alice:\(hash.dropLast())", 1, "not bcrypt"),
        ("alice:$1$" + hash.dropFirst(3), 1, "not bcrypt"),
        ("alice:$2y$03$" + hash.dropFirst(7), 1, "not bcrypt"),
        ("alice:$2y$04$" + hash.dropFirst(7).dropLast() + "!", 1, "not bcrypt"),
        ("alice", 1, "expected name:bcrypt-hash"),
        ("bob:\(hash)\nal ice:\(hash)", 2, "whitespace"),
        ("alice:\(hash):viewer:extra", 1, "expected name:bcrypt-hash"),
    ])
    func errorsNameTheVariableAndTheLineButNeverTheHash(text: String, line: Int, problem: String) {
        #expect {
            _ = try ConsoleUsersFile.parse(text, path: "/etc/receiptd/users")
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let message = "\(error)"
            return error.variable == "RECEIPTD_CONSOLE_USERS_FILE" && message.contains("line \(line):")
                && message.contains(problem) && !message.contains("ncq3Qq75")
        }
    }

    @Test func aFileWithoutUsersOrUnreadableIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty")
        try Data("# nobody yet\n\n".utf8).write(to: empty)
        #expect(throws: ConfigurationError.self) { try ConsoleUsersFile.load(path: empty.path) }
        #expect {
            _ = try ConsoleUsersFile.load(path: folder.appendingPathComponent("missing").path)
        } throws: { error in
            (error as? ConfigurationError)?.variable == "RECEIPTD_CONSOLE_USERS_FILE" && "\(error)".contains("missing")
        }
        let good = folder.appendingPathComponent("good")
        try Data((Self.htpasswdLine + "\n").utf8).write(to: good)
        #expect(try ConsoleUsersFile.load(path: good.path).map(\.name) == ["alice"])
    }

    @Test func addUsersLinesReadBack() throws {
        let hash = ConsoleUsersFile.hash(password: "pw", cost: 4)
        #expect(hash.hasPrefix("$2b$04$") && ConsoleUsersFile.normalizedHash(hash) == hash)
        let lines = [
            ConsoleUser(name: "op", passwordHash: hash, role: .operator),
            ConsoleUser(name: "look", passwordHash: hash, role: .viewer),
        ]
        .map(ConsoleUsersFile.line(for:))
        #expect(lines == ["op:\(hash)", "look:\(hash):viewer"])
        #expect(
            try ConsoleUsersFile.parse(lines.joined(separator: "\n"), path: "f").map(\.role) == [.operator, .viewer]
        )
    }

    @Test func namesWithColonsWhitespaceOrControlsAreRefused() {
        #expect(ConsoleUsersFile.nameProblem("agent.smith@example.com") == nil)
        for name in ["", "a:b", "a b", "a\tb", "a\u{7}b", "a\u{85}b"] {
            #expect(ConsoleUsersFile.nameProblem(name) != nil, "\(name.debugDescription)")
        }
    }

    @Test func anUnknownNameIsCheckedAgainstADummyHashOfTheUsersCost() {
        let users = ["$2b$05$", "$2b$05$", "$2b$12$"].map {
            ConsoleUser(name: UUID().uuidString, passwordHash: $0 + Self.hash.dropFirst(7), role: .operator)
        }
        let dummy = ConsoleAuthentication.makeDummyHash(costLike: users)
        #expect(dummy.hasPrefix("$2b$05$") && ConsoleUsersFile.normalizedHash(dummy) == dummy)
        #expect(ConsoleAuthentication.makeDummyHash(costLike: []).hasPrefix("$2b$12$"))
    }

    @Test func namesAreReadInNFCAndTwoSpellingsOfOneNameAreADuplicate() throws {
        let users = try ConsoleUsersFile.parse("\u{212A}ate:\(Self.hash)\n", path: "users")
        #expect(users.map { Array($0.name.utf8) } == [Array("Kate".utf8)], "stored as NFC")
        #expect {
            _ = try ConsoleUsersFile.parse("Kate:\(Self.hash)\n\u{212A}ate:\(Self.hash)", path: "users")
        } throws: { error in
            "\(error)".contains("line 2:") && "\(error)".contains("already on line 1")
        }
    }

    @Test func failuresCountPerUserWhicheverSpellingWasTyped() async throws {
        let kate = ConsoleUser(name: "Kate", passwordHash: "$2b$" + Self.hash.dropFirst(4), role: .operator)
        let authentication = ConsoleAuthentication(settings: ConsoleSettings(), users: [kate])
        for _ in 0..<5 { #expect(await authentication.signIn(name: "Kate", password: "guess") == .refused) }
        // The right password under another spelling of the same user gets no more guesses.
        #expect(await authentication.signIn(name: "\u{212A}ate", password: "secret") == .throttled)
        // A name that matches nobody is counted per normalized name.
        for _ in 0..<5 { #expect(await authentication.signIn(name: "\u{212A}elvin", password: "guess") == .refused) }
        #expect(await authentication.signIn(name: "Kelvin", password: "guess") == .throttled)
    }

    @Test func anotherSpellingOfAUsersNameSignsInAsThatUser() async throws {
        let users = try ConsoleUsersFile.parse("Kate:\(Self.hash)\n", path: "users")
        let authentication = ConsoleAuthentication(settings: ConsoleSettings(), users: users)
        guard case .signedIn(let session) = await authentication.signIn(name: "\u{212A}ate", password: "secret") else {
            Issue.record("KELVIN SIGN + ate did not sign in as Kate")
            return
        }
        #expect(Array(session.user.utf8) == Array("Kate".utf8))
    }
}
