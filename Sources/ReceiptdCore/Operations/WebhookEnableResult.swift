/// What `receiptd webhooks enable` did.
package struct WebhookEnableResult: Sendable, Codable, Equatable {
    /// Whether a 410 Gone had disabled the endpoint (otherwise enabling changed nothing but the record of who did).
    package var wasDisabled: Bool
    /// Since when, if it was.
    package var disabledAt: String?
    /// The event the endpoint answered 410 Gone to, if it was.
    package var disabledEvent: String?
    /// Events pending now, all due now.
    package var pending: Int
    /// Whether a daemon runs with `RECEIPTD_WEBHOOK_URL`: without one nothing is sent.
    package var configured: Bool
}
