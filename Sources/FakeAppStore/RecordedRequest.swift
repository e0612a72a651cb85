import Foundation

/// One call to a verifyReceipt path as the stand-in saw it, and how it ended.
///
/// Recorded on arrival; the answer fields are filled in when the answer is
/// written (or the connection ends), so an in-flight call shows them as `nil`.
package struct RecordedRequest: Sendable, Equatable {
    /// Which of Apple's two environments the call went to (verifyReceipt or Server API).
    package enum Environment: String, Sendable {
        /// `/verifyReceipt` or `/inApps/v1/…`.
        case production = "Production"
        /// `/sandbox/verifyReceipt` or `/sandbox/inApps/v1/…`.
        case sandbox = "Sandbox"
    }

    /// Endpoint the call went to, taken from the request path.
    package var environment: Environment
    /// The `password` field of the JSON body, if any.
    package var password: String?
    /// The `exclude-old-transactions` field of the JSON body, if any.
    package var excludeOldTransactions: Bool?
    /// The `receipt-data` field exactly as sent (empty when the body had none).
    package var receiptData: String
    /// Apple status in the JSON answer; `nil` when no JSON was answered (HTTP error, reset, raw body, abort).
    package var answeredStatus: Int?
    /// HTTP status of the answer; `nil` when the stand-in closed the connection instead or nothing was written.
    package var httpStatus: Int?
    /// `true` when the client closed the connection before the answer was written.
    package var abortedByClient: Bool
    /// When the call arrived (wall clock, so it compares with PostgreSQL's `now()`).
    package var receivedAt: Date
    /// When the client hung up before its answer, if it did.
    package var abortedAt: Date?

    /// Creates a record; the stand-in makes these, tests usually only read them.
    package init(
        environment: Environment,
        password: String? = nil,
        excludeOldTransactions: Bool? = nil,
        receiptData: String,
        answeredStatus: Int? = nil,
        httpStatus: Int? = nil,
        abortedByClient: Bool = false,
        receivedAt: Date = Date(),
        abortedAt: Date? = nil
    ) {
        self.environment = environment
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
        self.receiptData = receiptData
        self.answeredStatus = answeredStatus
        self.httpStatus = httpStatus
        self.abortedByClient = abortedByClient
        self.receivedAt = receivedAt
        self.abortedAt = abortedAt
    }
}
