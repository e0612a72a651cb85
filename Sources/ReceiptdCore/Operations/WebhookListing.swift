/// What `receiptd webhooks` shows: the endpoint's state, then the events matching the filter, newest first.
package struct WebhookListing: Sendable, Encodable, Equatable {
    /// The endpoint, read in the same snapshot as the events.
    package var endpoint: WebhookEndpointStatus
    /// The events, newest first.
    package var events: [WebhookEventSummary]

    /// Encodes the events alone, a JSON array as every list command prints; `receiptd status --json` has the
    /// endpoint.
    package func encode(to encoder: any Encoder) throws {
        try events.encode(to: encoder)
    }
}
