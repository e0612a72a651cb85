/// Why a notification request was not taken: the answer it gets, the cause (the `reason` label of
/// `receiptd_notifications_refused_total`) and the cause in words for the log, never the payload.
package struct NotificationRefusal: Error, Equatable, CustomStringConvertible {
    /// The answer a refusal gets.
    package enum Status: Int, Sendable {
        /// 400: not the JSON the store sends, over the body limit, not a JWS.
        case badRequest = 400
        /// 401: a signature, chain, bundle, environment or app check failed.
        case unauthorized = 401
        /// 503: the database cannot take it now; the store retries.
        case unavailable = 503
    }

    /// The answer.
    package var status: Status
    /// The cause, a fixed vocabulary (`body`, `too_large`, `malformed`, `chain`, `database`, …).
    package var reason: String
    /// The cause in words.
    package var description: String

    /// Creates a refusal.
    package init(_ status: Status, reason: String, _ description: String) {
        self.status = status
        self.reason = reason
        self.description = description
    }
}
