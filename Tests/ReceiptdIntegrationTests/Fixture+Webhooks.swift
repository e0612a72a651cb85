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

    /// Settings for the delivery tests: `webhookSettings` with waits short enough for a test (300 ms between
    /// attempts, 2 s to answer, a 10 s lease, polls every 100 ms), then `adjust`.
    func deliverySettings(
        _ receiver: WebhookReceiverStandIn,
        secrets: String = Fixture.webhookSecret,
        _ adjust: (inout WebhookConfiguration) -> Void = { _ in }
    ) throws -> ReceiptdSettings {
        var settings = try webhookSettings(receiver, secrets: secrets)
        settings.webhooks?.retryDelays = Array(repeating: .milliseconds(300), count: 7)
        settings.webhooks?.timeout = .seconds(2)
        settings.webhooks?.lease = .seconds(10)
        if var webhooks = settings.webhooks {
            adjust(&webhooks)
            settings.webhooks = webhooks
        }
        return settings
    }

    /// A fresh `msg_<32 hex>` id, as the triggers make them.
    static func webhookID() -> String {
        "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Writes a pending event as the triggers do (`id`, `order`, a small payload numbering it) and rings the daemons'
    /// doorbell; returns its id. For the delivery tests, which need events, not the changes behind them.
    @discardableResult
    func writeWebhookEvent(
        _ id: String = Fixture.webhookID(),
        order: String? = "o1",
        type: String = "order.verified",
        on connection: PostgresConnection? = nil
    ) async throws -> String {
        let connection = connection ?? self.connection
        try await connection.execute(
            """
            INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload)
            VALUES ($1, $2, $3, 'u1', jsonb_build_object('order_id', $3::text, 'event', $1::text))
            """,
            [id, type, order]
        )
        try await connection.execute("SELECT pg_notify('iap_webhooks', '')")
        return id
    }

    /// One event's row: `state`, `attempts`, `last_status`, `last_error`, `locked_by`, and as Unix seconds
    /// `next_attempt_at`, `delivered_at`, `locked_until`.
    func webhookEvent(_ id: String, on connection: PostgresConnection? = nil) async throws -> QueryResult.Row {
        let result = try await (connection ?? self.connection).execute(
            """
            SELECT state, attempts, last_status, last_error, locked_by,
                   extract(epoch FROM next_attempt_at)::float8 AS next_attempt_at,
                   extract(epoch FROM delivered_at)::float8 AS delivered_at,
                   extract(epoch FROM locked_until)::float8 AS locked_until
            FROM iap.webhook_events WHERE id = $1
            """,
            [id]
        )
        return try #require(result.first, "no webhook event \(id)")
    }
}
