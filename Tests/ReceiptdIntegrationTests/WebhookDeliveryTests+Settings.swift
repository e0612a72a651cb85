import Foundation
import Testing

/// Issue 22: `receiptd run` refuses a missing or malformed webhook secret with exit 78, naming the variable and
/// never printing the secret.
extension WebhookDeliveryTests {
    @Test func runExits78NamingTheSecretFileWithoutPrintingIt() throws {
        let secretLike = "whsec_NotQuiteBase64!!PrivateValue0123456789"
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("receiptd-webhook-secret-\(UUID().uuidString)")
        try Data("\(secretLike)\n".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let malformed = try ReceiptdBinary.run([
            "run", "--apple-bundle-id", "com.example.game", "--database-url", "host=127.0.0.1 port=1",
            "--webhook-url", "https://game.example/webhooks", "--webhook-secret-file", path.path,
        ])
        #expect(malformed.status == 78, "\(malformed.stderr)")
        #expect(malformed.stderr.contains("RECEIPTD_WEBHOOK_SECRET_FILE"), "\(malformed.stderr)")
        #expect(!(malformed.stdout + malformed.stderr).contains("PrivateValue"))

        let missing = try ReceiptdBinary.run(
            ["run", "--apple-bundle-id", "com.example.game", "--database-url", "host=127.0.0.1 port=1"],
            environment: ["RECEIPTD_WEBHOOK_URL": "https://game.example/webhooks"]
        )
        #expect(missing.status == 78 && missing.stderr.contains("RECEIPTD_WEBHOOK_SECRET_FILE"), "\(missing.stderr)")

        let plain = try ReceiptdBinary.run(
            ["run", "--apple-bundle-id", "com.example.game", "--database-url", "host=127.0.0.1 port=1"],
            environment: [
                "RECEIPTD_WEBHOOK_URL": "http://game.example/webhooks", "RECEIPTD_WEBHOOK_SECRET_FILE": path.path,
            ]
        )
        #expect(plain.status == 78 && plain.stderr.contains("RECEIPTD_WEBHOOK_URL"), "\(plain.stderr)")
    }
}
