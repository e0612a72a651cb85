import ArgumentParser
import FakeAppStore
import Foundation

/// `receiptd fake-googleplay`: the stand-in Google Play, for demos and load tests.
struct FakeGooglePlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-googleplay",
        abstract: "Serve a stand-in Google Play Developer API (never for production).",
        discussion: """
            Serves the token endpoint (/token), purchases.products.get, acknowledge and consume for synthetic purchase \
            tokens, voidedpurchases.list, and POST /fake/void for other processes to void purchases; its OIDC keys at             /oauth2/v3/certs, and POST /fake/rtdn (the notify subcommand) to push a real-time developer notification.
            """,
        subcommands: [FakeGooglePlayNotifyCommand.self]
    )

    @Option(help: "Address to listen on, HOST:PORT.") var listen = "127.0.0.1:8090"
    @Option(help: "The package it serves (the daemons' GOOGLE_PLAY_PACKAGE_NAME); others are answered 403.")
    var packageName = "com.example.game"
    @Option(
        help: ArgumentHelp(
            "Write its service-account key file here (mode 0600), for the daemons' GOOGLE_SERVICE_ACCOUNT_FILE.",
            valueName: "path"
        )
    )
    var writeServiceAccount: String?
    @Option(help: "Fixed latency in milliseconds before every token and API answer.") var latencyMs = 0

    func validate() throws {
        guard let colon = listen.lastIndex(of: ":"), Int(listen[listen.index(after: colon)...]) != nil else {
            throw ValidationError("--listen must be HOST:PORT, got \(listen)")
        }
        if latencyMs < 0 {
            throw ValidationError("--latency-ms must not be negative")
        }
    }

    func run() async throws {
        let colon = listen.lastIndex(of: ":")!
        let standIn = GooglePlayStandIn(
            configuration: .init(
                host: String(listen[..<colon]),
                port: Int(listen[listen.index(after: colon)...])!,
                packageName: packageName,
                latency: latencyMs
            )
        )
        // The key file names the token endpoint with the bound port, so it is written once bound, before serving.
        _ = try await standIn.start()
        if let writeServiceAccount {
            try standIn.writeServiceAccount(toFile: writeServiceAccount)
        }
        try await standIn.run()
    }
}
