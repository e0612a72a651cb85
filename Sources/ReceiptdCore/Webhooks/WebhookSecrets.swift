import Foundation

/// The secrets of `RECEIPTD_WEBHOOK_SECRET_FILE`, one a line: the first signs, and every one is sent as a signature
/// so that a receiver can rotate (add the new secret to the file's top, then remove the old one once receivers
/// trust the new one).
package struct WebhookSecrets: Sendable, Equatable {
    /// The secrets in file order; never empty.
    package let all: [WebhookSecret]

    /// Reads the file's text: one `whsec_…` a line, blank lines and lines starting with `#` skipped. A malformed
    /// line is refused with its line number, never its text.
    package init(fileText: String) throws(ConfigurationError) {
        var secrets: [WebhookSecret] = []
        for (index, line) in fileText.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            do {
                secrets.append(try WebhookSecret(text))
            } catch {
                throw ConfigurationError(
                    variable: "RECEIPTD_WEBHOOK_SECRET_FILE",
                    problem: "line \(index + 1) \(error)"
                )
            }
        }
        guard !secrets.isEmpty else {
            throw ConfigurationError(variable: "RECEIPTD_WEBHOOK_SECRET_FILE", problem: "holds no whsec_ secret")
        }
        all = secrets
    }

    /// The `webhook-signature` header: one `v1,<base64>` per secret, space-separated, the signing secret first.
    package func header(id: String, timestamp: Int64, body: some DataProtocol) -> String {
        all.map { $0.signature(id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }
}
