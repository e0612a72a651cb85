import Foundation
import ReceiptdCore

/// The checks a Standard Webhooks receiver makes, as the reference libraries make them: the three headers
/// present, the timestamp within the tolerance of now, and one of the `v1,` signatures in `webhook-signature`
/// the HMAC-SHA256 of `id.timestamp.body` under one of the receiver's secrets.
package struct WebhookSignatureCheck: Sendable {
    /// The secrets the receiver trusts.
    package var secrets: [WebhookSecret]
    /// How far the timestamp may be from now, either way (the libraries' default: five minutes).
    package var tolerance: Duration

    /// A check against `secrets`.
    package init(secrets: [WebhookSecret], tolerance: Duration = .seconds(300)) {
        self.secrets = secrets
        self.tolerance = tolerance
    }

    /// Nil when the request verifies, else why not.
    package func refusal(
        id: String?,
        timestamp: String?,
        signature: String?,
        body: [UInt8],
        now: Date = Date()
    )
        -> String?
    {
        guard let id, !id.isEmpty, let timestamp, let signature else { return "missing webhook headers" }
        guard let seconds = Int64(timestamp) else { return "webhook-timestamp is not Unix seconds" }
        guard abs(Double(seconds) - now.timeIntervalSince1970) <= tolerance.seconds else {
            return "webhook-timestamp is too far from now"
        }
        let offered = Set(signature.split(separator: " ").map(String.init))
        for secret in secrets where offered.contains(secret.signature(id: id, timestamp: seconds, body: body)) {
            return nil
        }
        return "no signature matches"
    }
}
