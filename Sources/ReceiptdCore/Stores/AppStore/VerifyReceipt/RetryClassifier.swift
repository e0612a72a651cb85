/// Sorts one attempt's result into verified, retry or reject. A pure function of Apple's answer.
package enum RetryClassifier {
    /// How many 21002 answers a job may retry before the receipt counts as malformed for good.
    package static let malformedRetries = 2

    /// Classifies `result`; `malformedAnswersSoFar` counts the job's earlier 21002 answers.
    package static func classify(_ result: AppleCallResult, malformedAnswersSoFar: Int) -> Verdict {
        switch result {
        case .transport(let reason):
            return .retry(TransientFailure(errorClass: .transport, reason: reason))
        case .garbled(let reason):
            return .retry(TransientFailure(errorClass: .garbled, reason: reason))
        case .httpStatus(let code, let retryAfter):
            return .retry(TransientFailure(errorClass: .http, reason: "HTTP \(code) from Apple", notBefore: retryAfter))
        case .answered(let response, let environment):
            return classify(response, environment: environment, malformedAnswersSoFar: malformedAnswersSoFar)
        }
    }

    private static func classify(
        _ response: AppleVerifyResponse,
        environment: StoreEnvironment,
        malformedAnswersSoFar: Int
    ) -> Verdict {
        let status = response.status
        let label = "status \(status) from \(environment.rawValue)"
        switch status {
        case 0:
            guard response.receipt != nil else {
                return .retry(TransientFailure(errorClass: .garbled, reason: "\(label) without a receipt"))
            }
            return .verified(
                VerifiedPurchases(
                    purchases: response.allTransactions,
                    environment: environment,
                    bundleID: response.receipt?.bundleID
                )
            )
        case 21002:
            guard malformedAnswersSoFar < malformedRetries else {
                return .reject(reason: "\(label): receipt data malformed (after \(malformedRetries) retries)")
            }
            return .retry(
                TransientFailure(
                    errorClass: .malformed,
                    reason: "\(label): malformed or temporary issue",
                    isMalformedAnswer: true
                )
            )
        case 21005, 21009:
            return .retry(TransientFailure(errorClass: .appleStatus, reason: "\(label): Apple temporarily unavailable"))
        case 21100...21199:
            guard response.isRetryable != false else { return .reject(reason: "\(label), not retryable") }
            return .retry(
                TransientFailure(errorClass: .appleStatus, reason: "\(label): Apple internal data access error")
            )
        case 21007, 21008:
            // Only reachable after the one redirect an attempt allows: the sandbox has answered spurious 21007s.
            return .retry(
                TransientFailure(errorClass: .appleStatus, reason: "\(label) after redirect: environments disagree")
            )
        default:
            return .reject(reason: "\(label)\(meaning(of: status).map { ": \($0)" } ?? "")")
        }
    }

    private static func meaning(of status: Int) -> String? {
        switch status {
        case 21000: "request not understood"
        case 21003: "receipt could not be authenticated"
        case 21004: "shared secret does not match (check APPLE_SHARED_SECRET)"
        case 21006: "subscription expired"
        case 21010: "account not found"
        default: nil
        }
    }
}
