import Foundation

/// One Set App Account Token call (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`) as the
/// stand-in saw it.
package struct RecordedAppAccountTokenRequest: Sendable, Equatable {
    /// `.production` for `/inApps/…`, `.sandbox` for `/sandbox/inApps/…`.
    package var environment: RecordedRequest.Environment
    /// The original transaction id from the path.
    package var originalTransactionID: String
    /// The body's `appAccountToken`, as sent.
    package var appAccountToken: String?
    /// Why the bearer token was refused (answered 401), or nil.
    package var bearerFailure: String?
    /// The HTTP status answered.
    package var httpStatus: Int
    /// When it arrived.
    package var receivedAt: Date
}
