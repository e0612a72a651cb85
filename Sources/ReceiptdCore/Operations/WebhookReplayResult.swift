/// What `receiptd webhooks replay` did: the events made pending again (due now, attempts 0, the same id), and the
/// ids no event has.
package struct WebhookReplayResult: Sendable, Codable, Equatable {
    /// The ids replayed, in the order given.
    package var replayed: [String]
    /// The ids given that no event has, in the order given.
    package var notFound: [String]
}
