/// Why an attempt failed, in broad strokes: the `error_class` of `iap.attempts` and of the retry metrics.
package enum ErrorClass: String, Sendable, Codable, CaseIterable {
    /// The connection failed, was reset, or no complete answer came in time.
    case transport
    /// The store answered with an HTTP status other than 200 (and no error of its own to go by).
    case http
    /// A 200 whose body is not the store's JSON, or lacks what it must carry.
    case garbled
    /// Status 21002, retried a few times.
    case malformed
    /// A status or error code the App Store documents as temporary (21005, 21009, 21100–21199, a redirect loop,
    /// the Server API's retryable codes); the name is the `error_class` value.
    case appleStatus = "apple_status"
    /// The store refused our credentials (App Store Server API HTTP 401), or none are configured.
    case credentials
    /// The database refused to record an answer, or could not be reached in time.
    case recording
    /// A terminal answer: the order is `invalid`.
    case rejected

    /// Whether the store, not the input or receiptd, failed: a trusted player's order waiting on such failures
    /// may be granted provisionally. A malformed receipt (21002) is the input's doing; credentials and recording
    /// are receiptd's.
    package var isStoreOutage: Bool {
        switch self {
        case .transport, .http, .garbled, .appleStatus: true
        case .malformed, .credentials, .recording, .rejected: false
        }
    }
}
