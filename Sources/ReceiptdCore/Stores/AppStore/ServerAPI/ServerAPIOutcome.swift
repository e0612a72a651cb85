import Foundation

/// What one App Store Server API request came to: a 200's body for the endpoint to read, or the verdict the
/// request earned, with what the store answered for `iap.attempts`.
struct ServerAPIOutcome: Sendable {
    /// A 200's body, or a verdict.
    enum Answer: Sendable {
        /// HTTP 200 with this body, for the endpoint to read.
        case found(Data)
        /// What the request earned, the body not worth reading.
        case verdict(Verdict)
    }

    /// The body or the verdict.
    var answer: Answer
    /// The environment asked; `nil` when no request was sent.
    var environment: StoreEnvironment?
    /// Apple's `errorCode`, if the answer carried one.
    var storeStatus: Int?
    /// The HTTP status, if an answer came.
    var httpStatus: Int?
    /// Whether the request was sent (not when no slot was free or the token could not be signed).
    var calledStore = true
    /// Whether the request went out and no answer came (a timeout, a dropped connection): Apple may have acted on it.
    var unanswered = false

    /// "App Store Server API (Production)", for reasons.
    var label: String { "App Store Server API (\(environment?.rawValue ?? "no environment"))" }

    /// Apple's "Transaction id not found" in this environment.
    var isNotFound: Bool {
        if case .verdict = answer { return storeStatus == ServerAPIClassifier.transactionIDNotFound }
        return false
    }

    /// The attempt with `verdict`, or with the request's own verdict when none is given.
    func attempt(_ verdict: Verdict? = nil) -> VerificationAttempt {
        let decided: Verdict
        switch (verdict, answer) {
        case (let verdict?, _): decided = verdict
        case (nil, .verdict(let own)): decided = own
        case (nil, .found):
            decided = .retry(TransientFailure(errorClass: .garbled, reason: "\(label): answer not read"))
        }
        return VerificationAttempt(
            verdict: decided,
            environment: environment,
            storeStatus: storeStatus,
            httpStatus: httpStatus,
            calledStore: calledStore
        )
    }

    /// A request not sent, with what that earns.
    static func notSent(_ verdict: Verdict) -> ServerAPIOutcome {
        ServerAPIOutcome(answer: .verdict(verdict), calledStore: false)
    }

    /// The retry of a garbled 200: `reason` says what it lacked.
    func garbled(_ reason: String) -> VerificationAttempt {
        attempt(.retry(TransientFailure(errorClass: .garbled, reason: "\(label): \(reason)")))
    }
}
