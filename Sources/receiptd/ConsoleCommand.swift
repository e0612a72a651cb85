import ArgumentParser
import Foundation

/// `receiptd console`: the support console in the browser (served by default), and `add-user`.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Serve the support console in the browser, on the operator's database role.",
        discussion: """
            Listens on RECEIPTD_CONSOLE_ADDR (default 127.0.0.1:9470) and signs users in from \
            RECEIPTD_CONSOLE_USERS_FILE (name:bcrypt-hash[:viewer] lines; `htpasswd -B` or `add-user` makes them). \
            Plain http: put it behind the company's TLS proxy or VPN. A missing or malformed setting exits 78.
            """,
        subcommands: [ConsoleServeCommand.self, ConsoleAddUserCommand.self],
        defaultSubcommand: ConsoleServeCommand.self
    )

    /// Writes `receiptd: configuration error: …` (the variable and what is wrong, never a secret) and returns exit
    /// status 78 (EX_CONFIG), as `receiptd run` does.
    static func configurationFailure(_ error: any Error) -> ExitCode {
        FileHandle.standardError.write(Data("receiptd: configuration error: \(error)\n".utf8))
        return ExitCode(78)
    }

    /// Writes `receiptd console <command>: message` and returns exit status 1.
    static func failure(_ command: String, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("receiptd console \(command): \(message)\n".utf8))
        return ExitCode(1)
    }
}
