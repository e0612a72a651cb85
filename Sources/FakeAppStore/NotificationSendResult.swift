/// What `POST /fake/notifications` answers: the notification sent, and what its target answered.
package struct NotificationSendResult: Codable, Sendable, Equatable {
    /// The notification's `notificationUUID`.
    package var notificationUUID: String
    /// The JWS posted (and listed in the history).
    package var signedPayload: String
    /// Whether it was posted.
    package var delivered: Bool
    /// The HTTP status the target answered; nil when not posted or no answer came.
    package var httpStatus: Int?
    /// Why no answer came, when it was posted and none did.
    package var error: String?
}
