import Foundation

extension GooglePlayClassifier {
    /// Sorts one `purchases.subscriptionsv2.get` answer into a verdict, as `classify` does a one-time product's:
    /// a pending subscription waits; one whose pending purchase was cancelled pays nothing; any other pays every
    /// period it names (`GoogleSubscriptionReading.periods`), and its first period is owed Google's subscription
    /// acknowledgement until Google has it.
    static func classifySubscription(
        status: Int,
        purchase: GoogleSubscriptionPurchase?,
        errorMessage: String? = nil,
        retryAfter: Duration? = nil,
        lookup: Lookup,
        configuration: GooglePlayConfiguration,
        now: Date = Date()
    ) -> VerificationAttempt {
        guard status == 200 else { return refusal(status: status, errorMessage: errorMessage, retryAfter: retryAfter) }
        guard let purchase, !purchase.lineItems.isEmpty else {
            return VerificationAttempt(
                verdict: .retry(
                    TransientFailure(
                        errorClass: .garbled,
                        reason: "Google Play: a subscription without subscriptionState or lineItems"
                    )
                ),
                httpStatus: 200
            )
        }
        let environment: StoreEnvironment = purchase.isTestPurchase ? .sandbox : .production
        if purchase.state == .pending {
            let wait = PendingSchedule.delay(afterWaiting: lookup.waited)
            return VerificationAttempt(
                verdict: .postpone(
                    after: wait,
                    reason: "subscription pending at Google (SUBSCRIPTION_STATE_PENDING): asking again in "
                        + "\(Int(wait.seconds / 60)) min"
                ),
                environment: environment,
                httpStatus: 200
            )
        }
        var periods = GoogleSubscriptionReading.periods(of: purchase, token: lookup.token, now: now)
        if purchase.state == .pendingPurchaseCanceled {
            // As a cancelled pending one-time purchase: verified, paying nothing.
            var cancelled = VerifiedPurchase(
                transactionID: GoogleLedgerID.of(orderID: purchase.latestPaidOrderID, token: lookup.token),
                productID: purchase.lineItems[0].productID,
                purchaseDateMilliseconds: purchase.startMilliseconds,
                isCancelled: true,
                accountID: purchase.accountID,
                store: .google
            )
            cancelled.details.storeKind = .autoRenewable
            periods = [cancelled]
        }
        let first = periods.first
        let finalization = first.map { first in
            GoogleFinalization(
                purchaseToken: lookup.token,
                productID: first.productID,
                action: .acknowledgeSubscription,
                overdue: configuration.finalizeOverdue,
                done: purchase.acknowledged ? [.acknowledgeSubscription] : [],
                transactionID: first.transactionID
            )
        }
        return VerificationAttempt(
            verdict: .verified(
                VerifiedPurchases(
                    purchases: periods,
                    environment: environment,
                    bundleID: configuration.packageName,
                    store: .google,
                    finalization: purchase.state == .pendingPurchaseCanceled ? nil : finalization
                )
            ),
            environment: environment,
            httpStatus: 200
        )
    }
}
