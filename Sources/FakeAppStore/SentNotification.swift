/// A notification the stand-in signed and "sent" (``AppStoreStandIn/sendNotification(_:)``): what Get Notification
/// History answers from, and what a test reads back.
package struct SentNotification: Codable, Sendable, Equatable {
    /// Its `notificationUUID`.
    package var notificationUUID: String
    /// Its `notificationType`.
    package var notificationType: String
    /// Its `subtype`, if any.
    package var subtype: String?
    /// `Production` or `Sandbox`: the history it is listed in.
    package var environment: String
    /// Its `signedDate` (milliseconds since 1970): Get Notification History filters on it.
    package var signedDate: Int64
    /// The JWS, as posted and as the history lists it.
    package var signedPayload: String
    /// Where it was posted; nil when it was kept in the history only.
    package var url: String?
    /// The HTTP status the target answered; nil when not posted or no answer came.
    package var httpStatus: Int?
    /// Why no answer came, when it was posted and none did.
    package var error: String?
}
