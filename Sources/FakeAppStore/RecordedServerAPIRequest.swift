import Foundation

/// One call to the App Store Server API (Get Transaction Info or Get Transaction History) as the stand-in saw it.
///
/// Recorded on arrival; `httpStatus` and `errorCode` are filled in when the answer is written.
package struct RecordedServerAPIRequest: Sendable, Equatable {
    /// `.production` for `/inApps/…`, `.sandbox` for `/sandbox/inApps/…`.
    package var environment: RecordedRequest.Environment
    /// The endpoint asked.
    package var endpoint: ServerAPIEndpoint
    /// The transaction id from the path.
    package var transactionID: String
    /// A history call's `revision` query parameter: `nil` for its first page and for Get Transaction Info.
    package var revision: String?
    /// Why the bearer token was refused (the call was answered 401), or `nil` when it was accepted.
    package var bearerFailure: String?
    /// HTTP status of the answer; `nil` while pending or when the stand-in closed the connection instead.
    package var httpStatus: Int?
    /// The `errorCode` of a JSON error answer, if one was sent.
    package var errorCode: Int?
    /// When the call arrived (wall clock, so it compares with PostgreSQL's `now()`).
    package var receivedAt: Date

    /// Creates a record; the stand-in makes these, tests usually only read them.
    package init(
        environment: RecordedRequest.Environment,
        endpoint: ServerAPIEndpoint = .transactionInfo,
        transactionID: String,
        revision: String? = nil,
        bearerFailure: String? = nil,
        httpStatus: Int? = nil,
        errorCode: Int? = nil,
        receivedAt: Date = Date()
    ) {
        self.environment = environment
        self.endpoint = endpoint
        self.transactionID = transactionID
        self.revision = revision
        self.bearerFailure = bearerFailure
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.receivedAt = receivedAt
    }
}
