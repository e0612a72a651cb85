import Foundation

/// One auto-renewable subscription as the stand-in App Store keeps it: every transaction of it, oldest first, and
/// where it is. Its changes return the notification Apple sends for them.
struct StandInSubscription: Sendable {
    /// What a change sends: the notification's type, subtype, and the transaction it is about.
    struct News: Sendable {
        var type: String
        var subtype: String?
        var transaction: SignedTransactionPayload
    }

    /// Every transaction, oldest first; the last one not `isUpgraded` is the current period.
    var transactions: [SignedTransactionPayload]
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    var status = 1
    /// Whether it renews by itself.
    var autoRenew = true
    /// The next period's product.
    var autoRenewProductID: String
    /// A failed renewal's grace period end.
    var gracePeriodExpires: Int64?
    /// Why it expired.
    var expirationIntent: Int?
    /// Each period's length.
    var periodMilliseconds: Int64
    /// Each paid period's price.
    var price: Int64

    /// A subscription bought now.
    init(_ purchase: SubscriptionPurchase, now: Int64) {
        periodMilliseconds = Int64(purchase.periodSeconds * 1000)
        price = purchase.offerDiscountType == "FREE_TRIAL" ? 4990 : purchase.price
        autoRenewProductID = purchase.productID
        transactions = [
            SignedTransactionPayload(
                transactionId: purchase.transactionID,
                productId: purchase.productID,
                purchaseDate: now,
                type: "Auto-Renewable Subscription",
                inAppOwnershipType: purchase.ownership,
                environment: purchase.environment,
                appAccountToken: purchase.appAccountToken,
                price: purchase.offerDiscountType == "FREE_TRIAL" ? 0 : purchase.price,
                currency: "USD",
                offerType: purchase.offerDiscountType == nil ? nil : 1,
                offerDiscountType: purchase.offerDiscountType,
                expiresDate: now + periodMilliseconds,
                subscriptionGroupIdentifier: purchase.groupID,
                webOrderLineItemId: purchase.transactionID + ".0"
            )
        ]
    }

    /// A subscription sold elsewhere (a seeded database's), whose current period is `renewed`: active, renewing.
    init(renewed: SignedTransactionPayload) {
        transactions = [renewed]
        autoRenewProductID = renewed.productId
        periodMilliseconds = (renewed.expiresDate ?? renewed.purchaseDate) - renewed.purchaseDate
        price = renewed.price ?? 4990
    }

    /// The current period's transaction.
    var current: SignedTransactionPayload { transactions[currentIndex] }

    /// Where the current period's transaction is in `transactions`.
    var currentIndex: Int {
        transactions.lastIndex { $0.isUpgraded != true } ?? transactions.count - 1
    }

    /// The renewal info as Apple would sign it now.
    func renewalInfo(now: Int64) -> RenewalInfoPayload {
        RenewalInfoPayload(
            originalTransactionId: current.originalTransactionId,
            productId: current.productId,
            autoRenewProductId: autoRenewProductID,
            autoRenewStatus: autoRenew ? 1 : 0,
            isInBillingRetryPeriod: status == 3 || status == 4,
            gracePeriodExpiresDate: status == 4 ? gracePeriodExpires : nil,
            expirationIntent: expirationIntent,
            renewalDate: current.expiresDate,
            environment: current.environment,
            signedDate: now
        )
    }

    /// Applies `change` at `now`; the news Apple sends about it.
    mutating func apply(_ change: SubscriptionChange, now: Int64) -> News {
        switch change {
        case .renew:
            let recovering = status == 3 || status == 4
            // A renewal begins where the period before ends (now, when that passed).
            let period = newPeriod(
                product: autoRenewProductID,
                reason: "RENEWAL",
                now: now,
                start: max(now, current.expiresDate ?? now)
            )
            status = 1
            gracePeriodExpires = nil
            return News(type: "DID_RENEW", subtype: recovering ? "BILLING_RECOVERY" : nil, transaction: period)
        case .failRenewal(let grace):
            if let grace {
                status = 4
                gracePeriodExpires = (current.expiresDate ?? now) + Int64(grace * 1000)
            } else {
                status = 3
            }
            return News(type: "DID_FAIL_TO_RENEW", subtype: grace == nil ? nil : "GRACE_PERIOD", transaction: current)
        case .endGracePeriod:
            status = 3
            gracePeriodExpires = nil
            return News(type: "GRACE_PERIOD_EXPIRED", subtype: nil, transaction: current)
        case .setAutoRenew(let on):
            autoRenew = on
            return News(
                type: "DID_CHANGE_RENEWAL_STATUS",
                subtype: on ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED",
                transaction: current
            )
        case .expire:
            let voluntary = !autoRenew
            status = 2
            autoRenew = false
            expirationIntent = voluntary ? 1 : 2
            gracePeriodExpires = nil
            return News(type: "EXPIRED", subtype: voluntary ? "VOLUNTARY" : "BILLING_RETRY", transaction: current)
        case .refund(let id):
            let index =
                id.flatMap { id in transactions.firstIndex { $0.transactionId == id } }
                ?? currentIndex
            transactions[index].revocationDate = now
            transactions[index].revocationReason = 0
            transactions[index].revocationType = "REFUND_FULL"
            if transactions[index].transactionId == current.transactionId { status = 5 }
            return News(type: "REFUND", subtype: nil, transaction: transactions[index])
        case .reverseRefund(let id):
            guard let index = transactions.firstIndex(where: { $0.transactionId == id }) else {
                return News(type: "REFUND_REVERSED", subtype: nil, transaction: current)
            }
            transactions[index].revocationDate = nil
            transactions[index].revocationReason = nil
            transactions[index].revocationType = nil
            if id == current.transactionId, status == 5 { status = (current.expiresDate ?? 0) > now ? 1 : 2 }
            return News(type: "REFUND_REVERSED", subtype: nil, transaction: transactions[index])
        case .upgrade(let product):
            let replaced = currentIndex
            transactions[replaced].isUpgraded = true
            let period = newPeriod(product: product, reason: "PURCHASE", now: now)
            autoRenewProductID = product
            status = 1
            return News(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", transaction: period)
        case .downgrade(let product):
            autoRenewProductID = product
            return News(type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", transaction: current)
        case .revoke:
            let index = currentIndex
            transactions[index].revocationDate = now
            transactions[index].revocationType = "FAMILY_REVOKE"
            status = 5
            autoRenew = false
            return News(type: "REVOKE", subtype: nil, transaction: transactions[index])
        }
    }

    /// A new period of `product` bought now and beginning at `start` (now by default), appended.
    private mutating func newPeriod(
        product: String,
        reason: String,
        now: Int64,
        start: Int64? = nil
    ) -> SignedTransactionPayload {
        let first = transactions[0]
        var period = first
        // Apple's ids are digits: the nth period of subscription 6100 is 6100 followed by n in three digits.
        period.transactionId = first.transactionId + String(format: "%03d", transactions.count)
        period.productId = product
        period.purchaseDate = start ?? now
        period.expiresDate = (start ?? now) + periodMilliseconds
        period.transactionReason = reason
        period.price = price
        period.offerType = nil
        period.offerDiscountType = nil
        period.revocationDate = nil
        period.revocationReason = nil
        period.revocationType = nil
        period.isUpgraded = nil
        period.webOrderLineItemId = "\(first.transactionId).\(transactions.count)"
        transactions.append(period)
        return period
    }
}
