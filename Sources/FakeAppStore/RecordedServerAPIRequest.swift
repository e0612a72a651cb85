import Foundation

/// One call to the App Store Server API's Get Transaction Info as the stand-in saw it.
///
/// Recorded on arrival; `httpStatus` and `errorCode` are filled in when the answer is written.
public struct RecordedServerAPIRequest: Sendable, Equatable {
    /// `.production` for `/inApps/v1/…`, `.sandbox` for `/sandbox/inApps/v1/…`.
    public var environment: RecordedRequest.Environment
    /// The transaction id from the path.
    public var transactionID: String
    /// Why the bearer token was refused (the call was answered 401), or `nil` when it was accepted.
    public var bearerFailure: String?
    /// HTTP status of the answer; `nil` while pending or when the stand-in closed the connection instead.
    public var httpStatus: Int?
    /// The `errorCode` of a JSON error answer, if one was sent.
    public var errorCode: Int?
    /// When the call arrived (wall clock, so it compares with PostgreSQL's `now()`).
    public var receivedAt: Date

    /// Creates a record; the stand-in makes these, tests usually only read them.
    public init(
        environment: RecordedRequest.Environment,
        transactionID: String,
        bearerFailure: String? = nil,
        httpStatus: Int? = nil,
        errorCode: Int? = nil,
        receivedAt: Date = Date()
    ) {
        self.environment = environment
        self.transactionID = transactionID
        self.bearerFailure = bearerFailure
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.receivedAt = receivedAt
    }
}
