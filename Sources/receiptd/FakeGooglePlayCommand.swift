import ArgumentParser
import FakeAppStore
import Foundation
import Logging

/// `receiptd fake-googleplay`: the stand-in Google Play, for demos and load tests.
struct FakeGooglePlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fake-googleplay",
        abstract: "Serve a stand-in Google Play Developer API and token endpoint for synthetic purchase tokens (never for production).")

    @Option(help: "Address to listen on, HOST:PORT.") var listen = "127.0.0.1:8090"
    @Option(help: "The package it serves (GOOGLE_PLAY_PACKAGE_NAME of the daemons).") var packageName = "com.example.game"
    @Option(help: ArgumentHelp("Write its service-account key here, for the daemons' GOOGLE_SERVICE_ACCOUNT_FILE.", valueName: "path"))
    var writeServiceAccount: String?

    func validate() throws {
        guard let colon = listen.lastIndex(of: ":"), Int(listen[listen.index(after: colon)...]) != nil else {
            throw ValidationError("--listen must be HOST:PORT, got \(listen)")
        }
    }

    func run() async throws {
        let colon = listen.lastIndex(of: ":")!
        let standIn = try GooglePlayStandIn(configuration: .init(
            host: String(listen[..<colon]), port: Int(listen[listen.index(after: colon)...])!, packageName: packageName))
        _ = try await standIn.start()
        if let writeServiceAccount {
            try standIn.writeServiceAccount(toFile: writeServiceAccount)
            print("service-account key written to \(writeServiceAccount); GOOGLE_PLAY_API_URL=\(standIn.baseURL)")
        }
        try await standIn.run()
    }
}
