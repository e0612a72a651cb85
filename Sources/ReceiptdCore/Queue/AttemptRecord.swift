import Foundation

/// One row of `iap.attempts`: what a single attempt asked and heard.
package struct AttemptRecord: Sendable, Equatable {
    /// How the attempt ended.
    package enum Result: String, Sendable {
        /// The store vouched for the purchases.
        case verified
        /// A transient failure; the job was rescheduled or, at its last attempt, failed.
        case retry
        /// A terminal answer; the order is `invalid`.
        case rejected
        /// The request was abandoned: the job was superseded or cancelled, or the daemon was stopping.
        case abandoned
    }

    /// When the store request started.
    package var startedAt: Date
    /// How long the store calls took.
    package var durationMilliseconds: Int
    /// The environment that answered with JSON, if one did.
    package var environment: StoreEnvironment?
    /// The store's own status or error code, if it gave one (the `apple_status` column).
    package var storeStatus: Int?
    /// The HTTP status, if an HTTP answer came.
    package var httpStatus: Int?
    /// How the attempt ended.
    package var result: Result
    /// The failure's class, when it failed.
    package var errorClass: ErrorClass?
    /// A readable error, when it failed.
    package var error: String?

    /// Describes an attempt from what the store answered and how it was judged; `nil` for an abandoned one.
    init(startedAt: Date, duration: Duration, attempt: VerificationAttempt?) {
        self.startedAt = startedAt
        durationMilliseconds = Int(
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        )
        environment = attempt?.environment
        storeStatus = attempt?.storeStatus
        httpStatus = attempt?.httpStatus
        switch attempt?.verdict {
        case .verified: result = .verified
        case .retry(let failure):
            result = .retry
            errorClass = failure.errorClass
            error = failure.reason
        case .reject(let reason):
            result = .rejected
            errorClass = .rejected
            error = reason
        case .postpone(_, let reason):
            result = .abandoned
            error = reason
        case nil:
            result = .abandoned
            error = "abandoned: superseded, cancelled or shutting down"
        }
    }
}

extension AttemptRecord {
    /// The attempt of `job` as a `jsonb` row of `PostgresJobQueue.insertAttempts`: the one way an attempt is written.
    func row(of job: ClaimedJob) -> [(String, JSONText.Value)] {
        [
            ("job_id", .int(job.id)), ("order_id", .string(job.order.orderID)), ("attempt", .int(Int64(job.attempts))),
            ("started_ms", .int(Int64((startedAt.timeIntervalSince1970 * 1000).rounded()))),
            ("duration_ms", .int(Int64(durationMilliseconds))), ("environment", .optional(environment?.rawValue)),
            ("apple_status", .optional(storeStatus)), ("http_status", .optional(httpStatus)),
            ("result", .string(result.rawValue)),
            ("error_class", .optional(errorClass?.rawValue)), ("error", .optional(error)),
        ]
    }

    /// Whether this attempt says the store is answering (`true`), failing (`false`), or nothing about it (`nil`).
    var storeHealthy: Bool? {
        switch result {
        case .verified, .rejected: true
        case .retry: errorClass == .malformed ? nil : false
        case .abandoned: nil
        }
    }
}
