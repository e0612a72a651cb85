import Foundation

/// One request the stand-in webhook receiver took, with what its checks found and what it answered.
package struct ReceivedWebhook: Sendable, Equatable, Codable {
    /// The `webhook-id` header.
    package var id: String
    /// The `webhook-timestamp` header, as sent.
    package var timestamp: String
    /// The `webhook-signature` header, as sent.
    package var signature: String
    /// The body, as sent.
    package var body: String
    /// The body's `type`, when it is a JSON object with one.
    package var type: String?
    /// Why the Standard Webhooks checks refused it (the receiver answered 401); nil when it verified.
    package var refusal: String?
    /// Whether an earlier request with the same id had been taken (answered 2xx): a receiver deduplicates it.
    package var duplicate: Bool
    /// The status answered; nil when the receiver never answered (a scripted hang).
    package var status: Int?
    /// When it arrived.
    package var receivedAt: Date

    /// Whether the signature and the timestamp verified.
    package var verified: Bool { refusal == nil }
}
