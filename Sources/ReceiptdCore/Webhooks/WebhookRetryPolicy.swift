/// What to do after an attempt, as Standard Webhooks asks: any 2xx is delivered; `410 Gone` disables the endpoint;
/// anything else is retried after the next wait of the schedule (or the endpoint's `Retry-After`, if longer),
/// and after the last one the event has failed.
package struct WebhookRetryPolicy: Sendable, Equatable {
    /// The waits after the first, second, … failed attempt, before jitter.
    package var delays: [Duration]
    /// The share each wait is spread by, either way.
    package var jitter: Double
    /// The longest `Retry-After` honoured: a receiver cannot park an event for longer than the schedule's end.
    package static let longestRetryAfter: Duration = .seconds(24 * 3600)

    /// The decision for one attempt.
    package enum Decision: Sendable, Equatable {
        /// The endpoint took it.
        case delivered
        /// Sent again after this wait.
        case retry(after: Duration)
        /// The schedule is over: `failed`.
        case failed
        /// `410 Gone`: the endpoint is disabled until an operator enables it; the event waits, pending.
        case endpointGone
    }

    /// Creates a policy.
    package init(delays: [Duration], jitter: Double) {
        self.delays = delays
        self.jitter = jitter
    }

    /// The decision for `answer` to the event's `attempts`-th attempt; `random` in 0..<1 places the jitter.
    package func decide(_ answer: WebhookAnswer, attempts: Int, random: Double) -> Decision {
        if let status = answer.status {
            if (200..<300).contains(status) { return .delivered }
            if status == 410 { return .endpointGone }
        }
        guard attempts >= 1, attempts <= delays.count else { return .failed }
        let spread = 1 + jitter * (2 * min(max(random, 0), 1) - 1)
        let wait = delays[attempts - 1] * spread
        guard let asked = answer.retryAfter else { return .retry(after: wait) }
        return .retry(after: max(wait, min(asked, Self.longestRetryAfter)))
    }
}
