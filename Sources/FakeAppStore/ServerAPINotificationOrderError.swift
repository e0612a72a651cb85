/// An order `POST /fake/notifications` cannot carry out.
package enum ServerAPINotificationOrderError: Error, CustomStringConvertible {
    /// `deliver` was not false, and no `url` was given.
    case noURL

    package var description: String {
        switch self {
        case .noURL: "a notification to deliver needs a url (or \"deliver\": false to keep it in the history only)"
        }
    }
}
