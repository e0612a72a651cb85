import ArgumentParser
import Foundation
import ReceiptdConsole
import ReceiptdCore

/// `receiptd console add-user NAME [--viewer] [--password-stdin]`: appends `name:$2b$…[:viewer]` to the users file.
struct ConsoleAddUserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Add a console user to RECEIPTD_CONSOLE_USERS_FILE (created with mode 0600 if missing).",
        discussion: """
            Asks for the password twice on the terminal, or reads one line of standard input with --password-stdin. \
            The running console reads the file at start: restart it to let the new user in.
            """
    )

    @Argument(help: "The sign-in name: not empty, no ':' and no whitespace.")
    var name: String

    @Flag(help: "A read-only user: sees every page, changes nothing.")
    var viewer = false

    @Flag(help: "Read the password from one line of standard input instead of asking on the terminal.")
    var passwordStdin = false

    @Option(help: "The users file (default: RECEIPTD_CONSOLE_USERS_FILE).")
    var usersFile: String?

    /// bcrypt reads no further; a longer password would be cut short without a word.
    private static let maximumPasswordBytes = 72

    func run() throws {
        let environment = ProcessInfo.processInfo.environment[ConsoleSettings.usersFileVariable]
        guard let path = usersFile ?? environment.flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw ConsoleCommand.configurationFailure(
                ConfigurationError(
                    variable: ConsoleSettings.usersFileVariable,
                    problem: "is required: the users file to add the user to (or pass --users-file)"
                )
            )
        }
        // Stored in NFC, as the console matches and counts names.
        let name = ConsoleUser.normalized(self.name)
        if let problem = ConsoleUsersFile.nameProblem(name) { throw ConsoleCommand.failure("add-user", problem) }
        var existing = ""
        if FileManager.default.fileExists(atPath: path) {
            let users: [ConsoleUser]
            do {
                existing = try ConsoleUsersFile.read(path: path)
                users = try ConsoleUsersFile.parse(existing, path: path)
            } catch {
                throw ConsoleCommand.configurationFailure(error)
            }
            guard !users.contains(where: { $0.name == name }) else {
                throw ConsoleCommand.failure("add-user", "\"\(name)\" is already in \(path)")
            }
        }
        let password = try readPassword()
        guard !password.isEmpty else { throw ConsoleCommand.failure("add-user", "the password is empty") }
        guard password.utf8.count <= Self.maximumPasswordBytes else {
            throw ConsoleCommand.failure(
                "add-user",
                "the password is longer than \(Self.maximumPasswordBytes) bytes, all bcrypt uses"
            )
        }
        guard !password.utf8.contains(0) else {
            throw ConsoleCommand.failure("add-user", "the password contains a NUL character")
        }
        let role: ConsoleRole = viewer ? .viewer : .operator
        let user = ConsoleUser(name: name, passwordHash: ConsoleUsersFile.hash(password: password), role: role)
        let separator = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
        try append(separator + ConsoleUsersFile.line(for: user) + "\n", to: path)
        print("added user \(name) (\(role.rawValue)) to \(path)")
    }

    /// One line of standard input, or the password typed twice on the terminal with echo off.
    private func readPassword() throws -> String {
        if passwordStdin {
            guard var line = readLine(strippingNewline: true) else {
                throw ConsoleCommand.failure("add-user", "no password on standard input")
            }
            if line.hasSuffix("\r") { line.removeLast() }
            return line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw ConsoleCommand.failure(
                "add-user",
                "standard input is not a terminal: pass --password-stdin to read the password from it"
            )
        }
        let first = Self.readHidden(prompt: "Password for \(name): ")
        let second = Self.readHidden(prompt: "Same password again: ")
        guard let first, first == second else {
            throw ConsoleCommand.failure("add-user", "the passwords do not match; nothing was added")
        }
        return first
    }

    /// A line typed with the terminal's echo off; the prompt goes to standard error.
    private static func readHidden(prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        let onTerminal = tcgetattr(STDIN_FILENO, &original) == 0
        if onTerminal {
            var quiet = original
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if onTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }

    /// Appends `text` to `path`, creating it readable by its owner only (mode 0600) when missing.
    private func append(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConsoleCommand.failure("add-user", "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw ConsoleCommand.failure("add-user", "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
