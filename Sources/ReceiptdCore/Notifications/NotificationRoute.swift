/// One store's notification endpoint on `NotificationServer`: the path it serves with `POST` and what it does
/// with a request's body. Another store is another route.
package protocol NotificationRoute: Sendable {
    /// The store whose notifications it takes: the `store` label of its refusals.
    var store: Store { get }
    /// The path it serves (`/notifications/apple`).
    var path: String { get }
    /// Verifies and records the notification in `body`; returns once it is committed (true when it is new, false
    /// when it was recorded before). Throws the refusal to answer otherwise.
    func take(_ body: [UInt8]) async throws(NotificationRefusal) -> Bool
}
