/// What one attempt to send an event came to: the endpoint's status, or why there was none.
package struct WebhookAnswer: Sendable, Equatable {
    /// The HTTP status; nil when no complete answer arrived (connection refused, timeout, reset).
    package var status: Int?
    /// The endpoint's `Retry-After`, when it sent one.
    package var retryAfter: Duration?
    /// What went wrong, for `last_error`: the transport failure, or the status and the body's start.
    package var error: String?

    /// Creates an answer.
    package init(status: Int?, retryAfter: Duration? = nil, error: String? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.error = error
    }
}
