import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

/// Webhooks: a stand-in receiver trusting the test secret, daemon settings that send to it, and the events read back.
extension Fixture {
    /// The test's signing secret (24 bytes).
    static let webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// A stand-in receiver trusting `secrets` (the test secret by default), started.
    static func webhookReceiver(secrets: String = Fixture.webhookSecret) async throws -> WebhookReceiverStandIn {
        let receiver = WebhookReceiverStandIn(
            secrets: try WebhookSecrets(fileText: secrets),
            logger: Logger(label: "fake-webhook-receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await receiver.start()
        return receiver
    }

    /// Daemon settings sending webhooks to `receiver` with the test secret (or `secrets`), polling often.
    func webhookSettings(
        _ receiver: WebhookReceiverStandIn,
        secrets: String = Fixture.webhookSecret,
        _ adjust: (inout ReceiptdSettings) -> Void = { _ in }
    ) throws -> ReceiptdSettings {
        var webhooks = WebhookConfiguration(url: receiver.url, secrets: try WebhookSecrets(fileText: secrets))
        webhooks.pollInterval = .milliseconds(100)
        return settings {
            $0.webhooks = webhooks
            adjust(&$0)
        }
    }

    /// Turns event writing on without a daemon (as a daemon with a URL does at start).
    func configureWebhooks(_ configured: Bool = true) async throws {
        try await connection.execute("SELECT iap.set_webhook_endpoint($1)", [configured])
    }

    /// The events of `iap.webhook_events`, in the order written: `id`, `type`, `order_id`, `state`, `attempts`, …
    func webhookEvents() async throws -> [QueryResult.Row] {
        try await connection.execute(
            """
            SELECT id, type, order_id, user_id, payload::text AS payload, state, attempts, last_status, last_error,
                   delivered_at IS NOT NULL AS delivered, next_attempt_at
            FROM iap.webhook_events ORDER BY seq
            """
        ).namedRows
    }
}
