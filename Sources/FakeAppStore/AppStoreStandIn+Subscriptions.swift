import Foundation

/// The stand-in's auto-renewable subscriptions: sold with periods of seconds, changed by the test or the demo
/// (renewed, failed into billing retry and grace, recovered, cancelled, expired, upgraded, downgraded, refunded,
/// revoked), each change announced with the signed notification Apple sends for it, and read back through
/// `GET /inApps/v1/subscriptions/{transactionId}` (and under `/sandbox`), Get All Subscription Statuses: the bearer
/// check, the next step of ``scriptSubscriptionStatuses(_:)`` if any, then the subscription's latest transaction and
/// renewal info, signed now, with its status; Apple's "not found" for a transaction of no subscription here. Every
/// transaction of a subscription is also served by Get Transaction Info.
extension AppStoreStandIn {
    /// Sells the subscription `purchase` describes now; its first transaction (not signed: sign it with
    /// ``AppleTestChain/signedTransaction(_:)`` to hand it to receiptd as a client would).
    package func subscribe(_ purchase: SubscriptionPurchase) -> SignedTransactionPayload {
        let first = subscriptionBook.subscribe(purchase, now: SignedTransactionPayload.nowMilliseconds())
        register(first)
        register(history: [first])
        return first
    }

    /// Applies `change` to the subscription whose original transaction id is `original` now and, with `notify`,
    /// posts Apple's signed notification about it there (`deliver` false keeps it in the notification history only,
    /// as a notification lost on the way). Returns the transaction the news is about (a renewal's new period), or nil
    /// for an unknown subscription.
    @discardableResult
    package func changeSubscription(
        _ change: SubscriptionChange,
        _ original: String,
        notify: String? = nil,
        deliver: Bool = true
    ) async throws -> SignedTransactionPayload? {
        let now = SignedTransactionPayload.nowMilliseconds()
        guard let changed = subscriptionBook.change(change, of: original, now: now) else { return nil }
        let transactions = subscriptionBook.transactions(of: original)
        for transaction in transactions { register(transaction) }
        // Get Transaction History answers every period, as Apple's does for the customer.
        register(history: transactions)
        if let notify {
            _ = try await sendNotification(
                ServerAPINotificationOrder(
                    notificationType: changed.news.type,
                    subtype: changed.news.subtype,
                    transaction: changed.news.transaction,
                    signedRenewalInfo: testChain.sign(payload: changed.renewal.encodedJSON()),
                    status: changed.status,
                    url: notify,
                    deliver: deliver
                )
            )
        }
        return changed.news.transaction
    }

    /// Every transaction of the subscription `original`, oldest first (upgraded ones included).
    package func subscriptionTransactions(_ original: String) -> [SignedTransactionPayload] {
        subscriptionBook.transactions(of: original)
    }

    /// The subscription `original` as an app receipt for the verifyReceipt path holds it now: every period in
    /// `in_app` and `latest_receipt_info` (with `expires_date_ms`, the group, free trials and Family Sharing) and its
    /// `pending_renewal_info`; nil for an unknown subscription. For the `server_api` path, an
    /// ``AppReceiptBuilder`` receipt naming the first transaction reads every period from Get Transaction History.
    package func subscriptionReceipt(_ original: String) -> SyntheticReceipt? {
        guard
            let parts = subscriptionBook.receiptParts(of: original, now: SignedTransactionPayload.nowMilliseconds())
        else { return nil }
        let entries = parts.transactions.map { payload in
            var entry = SyntheticTransaction(
                transactionID: payload.transactionId,
                originalTransactionID: payload.originalTransactionId,
                productID: payload.productId,
                quantity: String(payload.quantity),
                purchaseDateMilliseconds: String(payload.purchaseDate),
                cancellationDateMilliseconds: payload.revocationDate.map(String.init)
            )
            entry.expiresDateMilliseconds = payload.expiresDate.map(String.init)
            entry.subscriptionGroupIdentifier = payload.subscriptionGroupIdentifier
            entry.webOrderLineItemID = payload.webOrderLineItemId
            entry.isTrialPeriod = payload.offerType == 1 && payload.price == 0 ? "true" : "false"
            entry.isUpgraded = payload.isUpgraded == true ? "true" : nil
            entry.inAppOwnershipType = payload.inAppOwnershipType
            return entry
        }
        let renewal = parts.renewal
        return SyntheticReceipt(
            environment: parts.transactions.first?.environment == "Sandbox" ? "Sandbox" : "Production",
            bundleID: parts.transactions.first?.bundleId,
            inApp: entries,
            latestReceiptInfo: entries,
            pendingRenewalInfo: [
                SyntheticRenewalInfo(
                    originalTransactionID: renewal.originalTransactionId,
                    productID: renewal.productId,
                    autoRenewProductID: renewal.autoRenewProductId,
                    autoRenewStatus: String(renewal.autoRenewStatus),
                    isInBillingRetryPeriod: renewal.isInBillingRetryPeriod ? "1" : "0",
                    gracePeriodExpiresDateMilliseconds: renewal.gracePeriodExpiresDate.map(String.init),
                    expirationIntent: renewal.expirationIntent.map(String.init)
                )
            ]
        )
    }

    /// The steps the next Get All Subscription Statuses calls get, one a call (e.g. `ScriptStep(http: 500)`).
    package func scriptSubscriptionStatuses(_ steps: [ScriptStep]) {
        subscriptionBook.script(steps)
    }
}
