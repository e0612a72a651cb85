import Foundation

/// One Send Consumption Information v2 call (`PUT /inApps/v2/transactions/consumption/{id}`) as the stand-in saw it.
package struct RecordedConsumptionRequest: Sendable, Equatable {
    /// `.production` for `/inApps/…`, `.sandbox` for `/sandbox/inApps/…`.
    package var environment: RecordedRequest.Environment
    /// The transaction id from the path.
    package var transactionID: String
    /// The body as sent.
    package var body: String
    /// Why the bearer token was refused (answered 401), or nil.
    package var bearerFailure: String?
    /// The HTTP status answered.
    package var httpStatus: Int
    /// When it arrived.
    package var receivedAt: Date

    /// The body's JSON object (empty when it is not one), for tests to read field by field.
    package var fields: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }
}
