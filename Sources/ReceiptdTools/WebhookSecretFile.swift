import Foundation
import ReceiptdCore

/// A fresh `whsec_` secret in a private file, as `RECEIPTD_WEBHOOK_SECRET_FILE` names one: for the demo's, the
/// chaos run's and the benchmark's daemons and the stand-in receiver that trusts the same secret.
struct WebhookSecretFile {
    /// The directory (0700) holding the file.
    let directory: String
    /// The file (0600), one `whsec_` line.
    let path: String
    /// The secret as the daemon reads it from `path`.
    let secrets: WebhookSecrets

    /// Generates 32 random bytes and writes them as `whsec_<base64>`, readable by this user only.
    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-webhook-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        path = directory + "/secret"
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = "whsec_" + Data(key).base64EncodedString() + "\n"
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw ToolError("could not write the webhook secret file in \(directory)") }
        // Read back as the daemon reads RECEIPTD_WEBHOOK_SECRET_FILE.
        secrets = try WebhookSecrets(fileText: String(contentsOfFile: path, encoding: .utf8))
    }

    /// `RECEIPTD_WEBHOOK_URL` (`url`) and `RECEIPTD_WEBHOOK_SECRET_FILE` (this file).
    func environment(url: String) -> [String: String] {
        ["RECEIPTD_WEBHOOK_URL": url, "RECEIPTD_WEBHOOK_SECRET_FILE": path]
    }

    /// Deletes the file and its directory.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
