/// Receipt jobs through verifyReceipt: the call, then Apple's status sorted into a verdict.
struct ReceiptVerifier: PurchaseVerifier {
    let apple: AppleVerifier

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        let call = await apple.verify(receiptData: job.input)
        let verdict = RetryClassifier.classify(call, malformedAnswersSoFar: job.malformedCount)
        switch call {
        case .answered(let response, let environment):
            return VerificationAttempt(
                verdict: verdict,
                environment: environment,
                storeStatus: response.status,
                httpStatus: 200
            )
        case .httpStatus(let code, _):
            return VerificationAttempt(verdict: verdict, httpStatus: code)
        case .garbled:
            return VerificationAttempt(verdict: verdict, httpStatus: 200)
        case .transport:
            return VerificationAttempt(verdict: verdict)
        }
    }
}
