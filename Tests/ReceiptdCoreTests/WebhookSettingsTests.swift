import Foundation
import Testing

@testable import ReceiptdCore

/// `RECEIPTD_WEBHOOK_URL` and `RECEIPTD_WEBHOOK_SECRET_FILE`: both or neither, https (or http to loopback), and a
/// secret file that must hold `whsec_` secrets; every refusal names its variable and never shows a secret.
@Suite struct WebhookSettingsTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// Writes `contents` to a fresh temporary file, runs `body` with its path, removes it.
    func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("receiptd-webhook-secret-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// Expects a refusal naming `variable` whose text holds none of `secrets`.
    func expectRefusal(
        _ environment: [String: String],
        naming variable: String,
        hiding secrets: [String] = [WebhookSettingsTests.secret],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try ReceiptdSettings(completing: environment)
            Issue.record("accepted \(environment.keys.sorted())", sourceLocation: sourceLocation)
        } catch {
            #expect(error.variable == variable, "\(error)", sourceLocation: sourceLocation)
            for secret in secrets {
                #expect(!"\(error)".contains(secret), sourceLocation: sourceLocation)
                #expect(!"\(error)".contains(secret.dropFirst("whsec_".count)), sourceLocation: sourceLocation)
            }
        }
    }

    @Test func neitherVariableTurnsWebhooksOff() throws {
        #expect(try ReceiptdSettings(completing: [:]).webhooks == nil)
    }

    @Test func bothVariablesGiveTheDocumentedDefaults() throws {
        let other = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try withFile("# the new one first\n\(other)\n\(Self.secret)\n") { path in
            let settings = try ReceiptdSettings(completing: [
                "RECEIPTD_WEBHOOK_URL": "https://game.example/webhooks", "RECEIPTD_WEBHOOK_SECRET_FILE": path,
            ])
            let webhooks = try #require(settings.webhooks)
            #expect(webhooks.url == "https://game.example/webhooks")
            let expected = [try WebhookSecret(other), try WebhookSecret(Self.secret)]
            #expect(webhooks.secrets.all == expected)
            #expect(webhooks.timeout == .seconds(15))
            #expect(webhooks.lease == .seconds(60))
        }
        // http only to a loopback host, as for the store URLs.
        try withFile(Self.secret) { path in
            for url in ["http://127.0.0.1:8080/webhooks", "http://localhost/hooks", "http://[::1]:9/w"] {
                let settings = try ReceiptdSettings(completing: [
                    "RECEIPTD_WEBHOOK_URL": url, "RECEIPTD_WEBHOOK_SECRET_FILE": path,
                ])
                #expect(settings.webhooks?.url == url)
            }
        }
    }

    @Test func aURLWithoutASecretFileNamesTheSecretFile() {
        expectRefusal(["RECEIPTD_WEBHOOK_URL": "https://game.example/webhooks"], naming: "RECEIPTD_WEBHOOK_SECRET_FILE")
    }

    @Test func aSecretFileWithoutAURLNamesTheURL() throws {
        try withFile(Self.secret) { path in
            expectRefusal(["RECEIPTD_WEBHOOK_SECRET_FILE": path], naming: "RECEIPTD_WEBHOOK_URL")
        }
    }

    @Test(arguments: [
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!!Sw\n", "whsec_c2hvcnQ=\n",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\nnot-a-secret-at-all-but-private\n", "\n# nothing\n",
    ])
    func aMalformedSecretFileNamesItsVariableWithoutItsText(contents: String) throws {
        let secrets = contents.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        try withFile(contents) { path in
            expectRefusal(
                ["RECEIPTD_WEBHOOK_URL": "https://game.example/webhooks", "RECEIPTD_WEBHOOK_SECRET_FILE": path],
                naming: "RECEIPTD_WEBHOOK_SECRET_FILE",
                hiding: secrets
            )
        }
    }

    @Test func anUnreadableSecretFileNamesItsVariable() {
        expectRefusal(
            [
                "RECEIPTD_WEBHOOK_URL": "https://game.example/webhooks",
                "RECEIPTD_WEBHOOK_SECRET_FILE": "/nonexistent/receiptd/webhook-secret",
            ],
            naming: "RECEIPTD_WEBHOOK_SECRET_FILE"
        )
    }

    @Test(arguments: ["http://game.example/webhooks", "http://10.0.0.5/hooks", "ftp://game.example/x", "not a url"])
    func plainHTTPToAnotherHostOrNoURLIsRefused(url: String) throws {
        try withFile(Self.secret) { path in
            expectRefusal(
                ["RECEIPTD_WEBHOOK_URL": url, "RECEIPTD_WEBHOOK_SECRET_FILE": path],
                naming: "RECEIPTD_WEBHOOK_URL"
            )
        }
    }
}
