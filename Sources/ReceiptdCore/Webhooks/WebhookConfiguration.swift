/// Where and how the game server is told about changes over HTTPS (Standard Webhooks): `RECEIPTD_WEBHOOK_URL` and
/// `RECEIPTD_WEBHOOK_SECRET_FILE`; the documented defaults for the rest.
package struct WebhookConfiguration: Sendable, Equatable {
    /// The endpoint every event is POSTed to: https, or http to a loopback host.
    package var url: String
    /// The signing secrets: the first signs, every one is sent.
    package var secrets: WebhookSecrets
    /// The whole answer (head and body) must arrive within this, or the attempt failed.
    package var timeout: Duration = .seconds(15)
    /// The waits after the first, second, … failed attempt, before jitter; after the last, the event is `failed`.
    package var retryDelays: [Duration] = [
        .seconds(5), .seconds(5 * 60), .seconds(30 * 60), .seconds(2 * 3600), .seconds(5 * 3600), .seconds(10 * 3600),
        .seconds(10 * 3600),
    ]
    /// Each wait is spread by up to this share either way, so that a burst of failures does not retry as one.
    package var jitter = 0.1
    /// Events sent at once by one daemon.
    package var concurrency = 32
    /// How long a claimed event is this daemon's: longer than `timeout`, so that only a dead daemon's lapses.
    /// `RECEIPTD_LEASE`, or twice the timeout if that is longer.
    package var lease: Duration = .seconds(60)
    /// How often the senders look for due events without a notification.
    package var pollInterval: Duration = .seconds(1)

    /// The documented defaults for `url` and `secrets`.
    package init(url: String, secrets: WebhookSecrets) {
        self.url = url
        self.secrets = secrets
    }

    /// The retry rules these settings describe.
    package var retryPolicy: WebhookRetryPolicy { WebhookRetryPolicy(delays: retryDelays, jitter: jitter) }
}
