import Foundation

/// One Get Notification History call (`POST /inApps/v1/notifications/history`) as the stand-in saw it.
package struct RecordedNotificationHistoryQuery: Sendable, Equatable {
    /// `.production` for `/inApps/…`, `.sandbox` for `/sandbox/inApps/…`.
    package var environment: RecordedRequest.Environment
    /// The body's `startDate` (milliseconds since 1970), if it had one.
    package var startDate: Int64?
    /// The body's `endDate`, if it had one.
    package var endDate: Int64?
    /// The `paginationToken` query parameter: nil for a first page.
    package var paginationToken: String?
    /// Why the bearer token was refused (answered 401), or nil.
    package var bearerFailure: String?
    /// The HTTP status answered.
    package var httpStatus: Int
    /// When it arrived.
    package var receivedAt: Date
}
