/// One store's notification endpoint on `NotificationServer`: the path it serves with `POST` and what it does
/// with a request's body. Another store is another route.
package protocol NotificationRoute: Sendable {
    /// The store whose notifications it takes: the `store` label of its refusals.
    var store: Store { get }
    /// The path it serves (`/notifications/apple`).
    var path: String { get }
    /// The largest body it takes, in bytes; a longer one is answered 400 without being read.
    var bodyLimit: Int { get }
    /// Verifies and records the request (`headers` are its HTTP headers, names lowercased, for a route that
    /// authenticates by header); returns once what it records is committed. Throws the refusal to answer otherwise.
    func take(_ body: [UInt8], headers: [String: String]) async throws(NotificationRefusal) -> NotificationTaken
}

/// What a route did with a request it took (every case answers 2xx).
package enum NotificationTaken: Sendable, Equatable {
    /// Recorded: `new` is false when the store's id was recorded before (nothing changed). Answers 200.
    case recorded(new: Bool)
    /// Verified and deliberately not recorded (another app's message on a shared topic): answers 204, so the
    /// store does not send it again.
    case skipped
}
