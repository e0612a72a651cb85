import ArgumentParser
import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ServiceLifecycle

/// `receiptd fake-webhook-receiver`: the stand-in webhook endpoint of a game server, for demos and tests.
struct FakeWebhookReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-webhook-receiver",
        abstract:
            "Serve a stand-in webhook endpoint that checks Standard Webhooks signatures (never for production).",
        discussion:
            "Prints its URL (give it to the daemon as RECEIPTD_WEBHOOK_URL) and serves until SIGINT or SIGTERM. A request failing the checks (headers, a timestamp within 5 minutes, a v1 signature of one secret) is answered 401, any other 204 unless scripted: POST /fake/script takes a JSON array of answers such as [{\"status\":{\"_0\":500}}]. GET /fake/received lists every request taken. Exit 78 when the secret file is missing or malformed."
    )

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0: any free port, printed).") var port = 8091
    @Option(
        help: ArgumentHelp(
            "A file of whsec_ secrets, one a line, as RECEIPTD_WEBHOOK_SECRET_FILE: a request signed by any is taken.",
            valueName: "path"
        )
    )
    var secretFile: String

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func run() async throws {
        let secrets: WebhookSecrets
        do {
            secrets = try WebhookSecrets(fileText: try String(contentsOfFile: secretFile, encoding: .utf8))
        } catch let error as ConfigurationError {
            throw Self.configurationError(error.problem)
        } catch {
            throw Self.configurationError("cannot read \(secretFile)")
        }
        let logger = Logger(label: "fake-webhook-receiver")
        let receiver = WebhookReceiverStandIn(secrets: secrets, host: host, port: port, logger: logger)
        _ = try await receiver.start()
        // Unbuffered: whoever waits for the URL reads it while the receiver serves, even through a pipe.
        FileHandle.standardOutput.write(Data("\(receiver.url)\n".utf8))
        var quiet = logger
        quiet.logLevel = .warning
        let group = ServiceGroup(
            configuration: .init(
                services: [ReceiverService(receiver: receiver)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: quiet
            )
        )
        try await group.run()
        let received = receiver.received()
        let refused = received.filter { !$0.verified }.count
        FileHandle.standardOutput.write(
            Data(
                "Received \(received.count) request(s): \(received.count - refused) verified, \(refused) refused, \(receiver.delivered().count) delivered.\n"
                    .utf8
            )
        )
    }

    /// Writes `problem` about `--secret-file` (never the secrets) to stderr; exit 78 (EX_CONFIG), as the daemon's.
    private static func configurationError(_ problem: String) -> ExitCode {
        FileHandle.standardError.write(
            Data("receiptd fake-webhook-receiver: --secret-file \(problem.terminalSafe)\n".utf8)
        )
        return ExitCode(78)
    }
}

/// Keeps the started receiver serving until graceful shutdown (SIGTERM, SIGINT), then closes it.
private struct ReceiverService: Service {
    let receiver: WebhookReceiverStandIn
    func run() async throws {
        try? await gracefulShutdown()
        try await receiver.shutdown()
    }
}
