import ArgumentParser
import Foundation
import Logging
import ReceiptdConsole
import ReceiptdCore
import ServiceLifecycle

/// `receiptd console [serve]`: the console's HTTP server until SIGTERM or SIGINT.
struct ConsoleServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the console until SIGTERM or SIGINT (what `receiptd console` does)."
    )

    @Option(
        help:
            "libpq connection string or URI of a receiptd_operator login (default: DATABASE_URL, then libpq's PG* variables)."
    )
    var databaseURL: String?

    @Option(help: "host:port to listen on (RECEIPTD_CONSOLE_ADDR, default 127.0.0.1:9470).")
    var addr: String?

    @Option(help: "The users file, name:bcrypt-hash[:viewer] a line (RECEIPTD_CONSOLE_USERS_FILE).")
    var usersFile: String?

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let addr { environment[ConsoleSettings.addressVariable] = addr }
        if let usersFile { environment[ConsoleSettings.usersFileVariable] = usersFile }
        let settings: ConsoleSettings
        let users: [ConsoleUser]
        do {
            settings = try ConsoleSettings(environment: environment)
            users = try ConsoleUsersFile.load(path: settings.usersFile)
        } catch {
            throw ConsoleCommand.configurationFailure(error)
        }
        LogSetup.bootstrap(format: settings.logFormat, level: settings.logLevel)
        let logger = Logger(label: "receiptd-console")
        let connectionString = databaseURL ?? environment["DATABASE_URL"] ?? ""
        let database = ConsoleServer.databasePool(connectionString: connectionString)
        do {
            // At start rather than at the first page: a wrong DATABASE_URL is found at once.
            try await database.execute("SELECT 1")
        } catch {
            await database.close()
            let message = SecretRedaction.redact("\(error)", connectionString: connectionString)
            throw ConsoleCommand.failure("serve", "cannot use the database: \(message.terminalSafe)")
        }
        let server = ConsoleServer(
            settings: settings,
            users: users,
            database: database,
            logger: logger,
            onListening: { port in
                var bound = settings
                bound.port = port
                logger.notice("receiptd console listening on http://\(bound.address)")
            }
        )
        let group = ServiceGroup(
            configuration: .init(
                // The server returns once it has drained after a signal: that ends the group, not an error.
                services: [.init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }
}
