/// The stand-in refused a `POST /fake/notifications` (a bad order) or answered something unexpected.
package struct NotificationRequestRefused: Error, CustomStringConvertible {
    /// The HTTP status it answered.
    package var status: Int
    /// Its message.
    package var message: String

    package var description: String { "the stand-in answered HTTP \(status): \(message)" }
}
