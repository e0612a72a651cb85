/// One page of Get Notification History: `{"notificationHistory": [{"signedPayload", "sendAttempts"}], "hasMore",
/// "paginationToken"}`.
struct NotificationHistoryPage: Decodable, Sendable {
    /// One notification Apple sent (or tried to).
    struct Record: Decodable, Sendable {
        /// The notification as Apple signed it: the JWS the intake would have been posted.
        var signedPayload: String
    }

    /// The notifications of the page.
    var notificationHistory: [Record]?
    /// Whether another page follows.
    var hasMore: Bool?
    /// The token that asks for the next page.
    var paginationToken: String?
}
