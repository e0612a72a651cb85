import Testing

@testable import ReceiptdCore

@Suite struct RetryClassifierTests {
    private func answered(_ status: Int, retryable: Bool? = nil, receipt: Bool = true) -> AppleCallResult {
        .answered(
            AppleVerifyResponse(
                status: status,
                isRetryable: retryable,
                receipt: receipt ? .init(bundleID: "b", inApp: []) : nil
            ),
            environment: .production
        )
    }

    private func isRetry(_ verdict: Verdict) -> Bool {
        if case .retry = verdict { return true }
        return false
    }

    private func isReject(_ verdict: Verdict) -> Bool {
        if case .reject = verdict { return true }
        return false
    }

    @Test func statusZeroWithReceiptIsVerified() {
        guard case .verified(let verified) = RetryClassifier.classify(answered(0), malformedAnswersSoFar: 0) else {
            Issue.record("expected verified")
            return
        }
        #expect(verified.environment == .production)
    }

    @Test func statusZeroWithoutReceiptIsRetried() {
        #expect(isRetry(RetryClassifier.classify(answered(0, receipt: false), malformedAnswersSoFar: 0)))
    }

    @Test(arguments: [21005, 21009, 21100, 21150, 21199, 21007, 21008])
    func transientStatusesAreRetried(status: Int) {
        #expect(isRetry(RetryClassifier.classify(answered(status), malformedAnswersSoFar: 0)))
    }

    @Test(arguments: [21000, 21003, 21004, 21006, 21010, 21001, 1, 99999])
    func otherStatusesAreTerminal(status: Int) {
        #expect(isReject(RetryClassifier.classify(answered(status), malformedAnswersSoFar: 0)))
    }

    @Test func internalErrorMarkedNotRetryableIsTerminal() {
        #expect(isReject(RetryClassifier.classify(answered(21100, retryable: false), malformedAnswersSoFar: 0)))
        #expect(isRetry(RetryClassifier.classify(answered(21100, retryable: true), malformedAnswersSoFar: 0)))
    }

    @Test func malformedIsRetriedTwiceThenInvalid() {
        let first = RetryClassifier.classify(answered(21002), malformedAnswersSoFar: 0)
        guard case .retry(let failure) = first else {
            Issue.record("expected retry")
            return
        }
        #expect(failure.isMalformedAnswer)
        #expect(isRetry(RetryClassifier.classify(answered(21002), malformedAnswersSoFar: 1)))
        #expect(isReject(RetryClassifier.classify(answered(21002), malformedAnswersSoFar: 2)))
    }

    @Test func transportHTTPAndGarbledAreRetried() {
        #expect(isRetry(RetryClassifier.classify(.transport("reset"), malformedAnswersSoFar: 0)))
        #expect(isRetry(RetryClassifier.classify(.garbled("html"), malformedAnswersSoFar: 0)))
        guard
            case .retry(let failure) = RetryClassifier.classify(
                .httpStatus(429, retryAfter: .seconds(7)),
                malformedAnswersSoFar: 0
            )
        else {
            Issue.record("expected retry")
            return
        }
        #expect(failure.notBefore == .seconds(7))
        #expect(failure.errorClass == .http)
    }

    @Test func sharedSecretMismatchNamesTheVariable() {
        guard case .reject(let reason) = RetryClassifier.classify(answered(21004), malformedAnswersSoFar: 0) else {
            Issue.record("expected reject")
            return
        }
        #expect(reason.contains("APPLE_SHARED_SECRET"))
    }
}
