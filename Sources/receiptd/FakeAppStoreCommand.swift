import ArgumentParser
import FakeAppStore
import Logging

/// `receiptd fake-appstore`: the stand-in App Store, for demos and load tests.
struct FakeAppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-appstore",
        abstract:
            "Serve a stand-in verifyReceipt and App Store Server API for synthetic purchases (never for production).",
        subcommands: [FakeAppStoreNotifyCommand.self]
    )

    @Option(help: "Address to listen on, HOST:PORT.") var listen = "127.0.0.1:8089"
    @Option(help: "Answer with status 21004 unless the request's password is this.") var sharedSecret: String?
    @Option(help: "Fixed latency in milliseconds (overridden by --latency).") var latencyMs = 0
    @Option(help: "Latency: fixed:MS, uniform:MIN-MAX or lognormal:MEDIAN,P99 (milliseconds).") var latency: String?
    @Option(help: "Share of calls answered HTTP 503 (0…1).") var unavailableRate = 0.0
    @Option(help: "Share of calls answered status 21005 (0…1).") var status21005Rate = 0.0
    @Option(help: "Share of calls whose connection is reset (0…1).") var resetRate = 0.0
    @Option(help: "Share of calls never answered, the connection left open (0…1).") var timeoutRate = 0.0
    @Option(help: "Share of receipts treated as sandbox receipts: 21007 on production, verified on sandbox (0…1).")
    var sandboxRate = 0.0
    @Option(help: "Seed for the random draws.") var seed: UInt64 = 1
    @Option(
        help: ArgumentHelp(
            "Write the root certificate (PEM) of the chain signing transactions here.",
            valueName: "path"
        )
    )
    var writeRootCa: String?
    @Option(
        help: ArgumentHelp(
            "Write the root certificate (PEM) of the RSA chain signing app receipts (AppReceiptBuilder's) here, for APPLE_RECEIPT_ROOT_CA_FILE.",
            valueName: "path"
        )
    )
    var writeReceiptRootCa: String?
    @Option(
        help: ArgumentHelp(
            "Generate an App Store Connect API key, write its private key here (PEM, mode 0600) and accept only bearer tokens it signed.",
            valueName: "path"
        )
    )
    var writeApiKey: String?
    @Option(help: "Key id (kid) bearer tokens must carry.") var apiKeyId = AppStoreStandIn.Configuration
        .defaultServerAPIKeyID
    @Option(help: "Issuer id (iss) bearer tokens must carry.") var apiIssuerId = AppStoreStandIn.Configuration
        .defaultServerAPIIssuerID
    @Option(help: "Bundle id (bid) bearer tokens must carry.") var bundleId = SyntheticReceipt.defaultBundleID
    @Option(
        help: ArgumentHelp("Server API calls allowed per rolling second; the excess is answered 429.", valueName: "n")
    )
    var serverApiRateLimit: Int?

    func validate() throws {
        guard let colon = listen.lastIndex(of: ":"), Int(listen[listen.index(after: colon)...]) != nil else {
            throw ValidationError("--listen must be HOST:PORT, got \(listen)")
        }
        let rates = [
            ("--unavailable-rate", unavailableRate), ("--status21005-rate", status21005Rate),
            ("--reset-rate", resetRate),
            ("--timeout-rate", timeoutRate), ("--sandbox-rate", sandboxRate),
        ]
        for (name, rate) in rates where !(0...1).contains(rate) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
        if let serverApiRateLimit, serverApiRateLimit < 1 {
            throw ValidationError("--server-api-rate-limit must be at least 1")
        }
        if let latency, AppStoreStandIn.Latency(specification: latency) == nil {
            throw ValidationError("--latency must be \(AppStoreStandIn.Latency.specificationFormats), got \(latency)")
        }
    }

    func run() async throws {
        let colon = listen.lastIndex(of: ":")!
        let chosenLatency =
            latency.flatMap(AppStoreStandIn.Latency.init(specification:)) ?? .fixed(milliseconds: latencyMs)
        let apiKey = writeApiKey.map { _ in ServerAPITestKey.generate() }
        let standIn = AppStoreStandIn(
            configuration: .init(
                host: String(listen[..<colon]),
                port: Int(listen[listen.index(after: colon)...])!,
                sharedSecret: sharedSecret,
                latency: chosenLatency,
                unavailableRate: unavailableRate,
                status21005Rate: status21005Rate,
                resetRate: resetRate,
                timeoutRate: timeoutRate,
                sandboxRate: sandboxRate,
                seed: seed,
                serverAPIKey: apiKey?.publicKey,
                serverAPIKeyID: apiKeyId,
                serverAPIIssuerID: apiIssuerId,
                serverAPIBundleID: bundleId,
                serverAPIRateLimit: serverApiRateLimit
            )
        )
        // Written before serving, so whoever waits for the port finds the files in place.
        if let writeRootCa {
            try standIn.testChain.writeRoot(toFile: writeRootCa)
        }
        if let writeReceiptRootCa {
            try standIn.receiptChain.writeRoot(toFile: writeReceiptRootCa)
        }
        if let writeApiKey, let apiKey {
            try apiKey.write(toFile: writeApiKey)
        }
        try await standIn.run()
    }
}
