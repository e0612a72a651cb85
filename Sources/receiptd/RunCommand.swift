import ArgumentParser
import AsyncHTTPClient
import Logging
import ReceiptdCore
import ServiceLifecycle

/// `receiptd run`: the daemon, until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the verification daemon.")

    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let settings = try options.settings()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "receiptd")
        let client = HTTPClient.makeForApple(concurrency: settings.daemon.concurrency)
        let daemon = ReceiptDaemon(
            configuration: settings.daemon, connectionString: settings.databaseURL,
            verifier: AppleVerifier(configuration: settings.apple, client: client), logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [daemon], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
