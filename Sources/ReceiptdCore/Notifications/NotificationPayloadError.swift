/// A notification's stored payload could not be read: processing records it as `failed` with this reason.
package struct NotificationPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, without the payload.
    package var reason: String
    /// The reason.
    package var description: String { reason }
}
