/// What the stand-in receiver answers to the next verified request, as scripted by a test or the demo.
package enum WebhookReceiverAnswer: Sendable, Equatable, Codable {
    /// This status, with `Retry-After` when given (delta seconds or an HTTP date, sent as is).
    case status(Int, retryAfter: String? = nil)
    /// Never answers: the connection stays open until the sender gives up.
    case hang
    /// This status after `milliseconds`: a slow endpoint, or a request still in flight while a test acts.
    case delayed(milliseconds: Int, status: Int)
}
