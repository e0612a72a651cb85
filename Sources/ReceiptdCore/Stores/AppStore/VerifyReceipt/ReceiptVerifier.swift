/// Receipt jobs through verifyReceipt: the call, then Apple's status sorted into a verdict.
struct ReceiptVerifier: PurchaseVerifier {
    let apple: AppleVerifier

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        let call = await apple.verify(receiptData: job.input)
        let verdict = RetryClassifier.classify(call, malformedAnswersSoFar: job.malformedCount)
        switch call {
        case .answered(let response, let environment):
            if apple.configuration.sharedSecret == nil, Self.ordersAutoRenewable(job, in: response) {
                var waiting = StoreNotConfigured.attempt(
                    "verifyReceipt for auto-renewable subscriptions",
                    remedy:
                        "set APPLE_SHARED_SECRET (Apple answers a subscription's periods and renewal only with it), "
                        + "or RECEIPTD_RECEIPT_VERIFIER=server_api with App Store Server API credentials"
                )
                waiting.calledStore = true
                return waiting
            }
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

    /// Whether the answer shows the job's order to be for an auto-renewable: an entry of its product carries an
    /// expiry. Without the shared secret Apple leaves out such a receipt's later periods and renewal state, so its
    /// order waits as an unconfigured store's does rather than settle on half the truth.
    static func ordersAutoRenewable(_ job: ClaimedJob, in response: AppleVerifyResponse) -> Bool {
        guard response.status == 0 else { return false }
        // Either copy of a transaction says its expiry: no need to merge them.
        let isOrdered = { (entry: VerifiedPurchase) in
            entry.details.storeKind == .autoRenewable && entry.productID == job.order.productID
        }
        return response.receipt?.inApp?.contains(where: isOrdered) == true
            || response.latestReceiptInfo?.contains(where: isOrdered) == true
    }
}
