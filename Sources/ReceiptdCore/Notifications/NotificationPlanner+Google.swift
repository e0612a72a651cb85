import Foundation

extension NotificationPlanner {
    /// The action for a Google notification recorded as `type` with `payload` (after its lookup, when it needs
    /// one); `signedAtMilliseconds` is its Pub/Sub publish time (a full refund without an event time dates from then).
    package func googleAction(
        type: String,
        payload: GoogleNotificationPayload,
        signedAtMilliseconds: Int64
    ) -> NotificationAction {
        let notification = payload.notification
        switch type {
        case "TEST":
            return .record
        case "ONE_TIME_PRODUCT_PURCHASED":
            guard let oneTime = notification.oneTimeProductNotification else {
                return .fail("\(type) without oneTimeProductNotification")
            }
            guard let purchase = payload.purchase else { return .fail("\(type) without the purchase lookup's answer") }
            let state: GoogleNotifiedPurchase.State
            switch purchase.purchaseState {
            case .purchased: state = .purchased
            case .pending: state = .pending
            // Cancelled before it was paid (or refunded): nothing to deliver, nothing wrong.
            case .cancelled: return .record
            case .unknown(let code): return .fail("\(type): purchaseState \(code) is not one receiptd knows")
            }
            guard let quantity = purchase.quantity else {
                return .fail("\(type): the purchase's quantity is unreadable")
            }
            return .settleGooglePurchase(
                GoogleNotifiedPurchase(
                    token: oneTime.purchaseToken,
                    productID: oneTime.sku,
                    ledgerID: purchase.ledgerID(token: oneTime.purchaseToken),
                    state: state,
                    accountID: purchase.accountID,
                    quantity: quantity,
                    purchaseTimeMilliseconds: purchase.purchaseTimeMilliseconds
                )
            )
        case "ONE_TIME_PRODUCT_CANCELED":
            guard let oneTime = notification.oneTimeProductNotification else {
                return .fail("\(type) without oneTimeProductNotification")
            }
            return .wakeGooglePurchase(token: oneTime.purchaseToken)
        case "VOIDED_PURCHASE":
            guard let voided = notification.voidedPurchaseNotification else {
                return .fail("\(type) without voidedPurchaseNotification")
            }
            let transactionID = GoogleLedgerID.of(orderID: voided.orderId, token: voided.purchaseToken)
            let voidedAt = notification.eventTimeMillis.flatMap { Int64($0) } ?? signedAtMilliseconds
            // A subscription's voided period is revoked like a one-time purchase, and its subscription read again.
            if voided.productType == 1 {
                return .revokeSubscriptionPeriod(
                    transactionID: transactionID,
                    token: voided.purchaseToken,
                    revokedAtMilliseconds: voidedAt
                )
            }
            guard voided.refundType == 2 else {
                return .revoke(
                    transactionID: transactionID,
                    reason: "voided",
                    percentage: nil,
                    revokedAtMilliseconds: voidedAt
                )
            }
            guard let entries = payload.voided else { return .fail("\(type) without the voided purchases lookup") }
            let refunds = entries.compactMap { entry -> GooglePartialRefund? in
                guard entry.ledgerID == transactionID, let quantity = entry.voidedQuantity else { return nil }
                return GooglePartialRefund(
                    voidedAtMilliseconds: entry.voidedTimeMilliseconds ?? signedAtMilliseconds,
                    quantity: quantity,
                    purchaseToken: entry.purchaseToken
                )
            }
            guard !refunds.isEmpty else {
                return .fail("\(type): Google's voided purchases list has no partial refund of this purchase")
            }
            return .revokeUnits(transactionID: transactionID, refunds: refunds)
        case "PENDING_REFUND_REVIEW":
            guard let review = notification.pendingRefundReviewNotification else {
                return .fail("\(type) without pendingRefundReviewNotification")
            }
            return .requestRefundReview(
                GoogleRefundReviewRequest(
                    token: review.pendingRefundToken,
                    orderID: review.orderId,
                    reason: review.refundReason.map { String($0) },
                    accountID: review.obfuscatedAccountId,
                    eventTimeMilliseconds: notification.eventTimeMillis.flatMap { Int64($0) } ?? signedAtMilliseconds
                )
            )
        default:
            if let subscription = notification.subscriptionNotification {
                guard let token = subscription.purchaseToken else {
                    return .fail("\(type) without subscriptionNotification.purchaseToken")
                }
                if subscription.notificationType == 2 {
                    return Self.renewal(token: token, lookedUp: payload.subscription, at: signedAtMilliseconds)
                }
                return .googleSubscriptionNews(
                    token: token,
                    purchase: payload.subscription.flatMap { Self.notifiedPurchase(of: $0, token: token) }
                )
            }
            // UNKNOWN and one-time kinds this build does not know.
            return .ignore
        }
    }

    /// A `SUBSCRIPTION_RENEWED`: before its lookup, the renewal waits for its subscription; after it, the latest
    /// period subscriptionsv2 names is the one to record unclaimed (none, pending: the subscription's news only).
    static func renewal(
        token: String,
        lookedUp: GoogleSubscriptionPurchase?,
        at milliseconds: Int64
    ) -> NotificationAction {
        guard let lookedUp else { return .googleSubscriptionRenewed(token: token, period: nil, originalID: nil) }
        let now = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        guard let latest = GoogleSubscriptionReading.periods(of: lookedUp, token: token, now: now).last else {
            return .googleSubscriptionNews(token: token, purchase: nil)
        }
        return .googleSubscriptionRenewed(
            token: token,
            period: GoogleNotifiedPurchase(
                token: token,
                productID: latest.productID,
                ledgerID: latest.transactionID,
                state: .purchased,
                accountID: latest.accountID,
                quantity: 1,
                purchaseTimeMilliseconds: latest.purchaseDateMilliseconds
            ),
            originalID: latest.originalTransactionID
        )
    }

    /// A subscription a `SUBSCRIPTION_PURCHASED` reported, as subscriptionsv2 describes it: its first period, to
    /// settle as a one-time purchase reported this way is; nil when there is nothing to pay (its pending purchase
    /// was cancelled).
    static func notifiedPurchase(of subscription: GoogleSubscriptionPurchase, token: String) -> GoogleNotifiedPurchase?
    {
        guard let line = subscription.lineItems.first, subscription.state != .pendingPurchaseCanceled else {
            return nil
        }
        let base = subscription.latestPaidOrderID.map { GoogleSubscriptionReading.chain(of: $0).base }
        return GoogleNotifiedPurchase(
            token: token,
            productID: line.productID,
            ledgerID: GoogleLedgerID.of(orderID: base, token: token),
            state: subscription.state == .pending ? .pending : .purchased,
            accountID: subscription.accountID,
            quantity: 1,
            purchaseTimeMilliseconds: subscription.startMilliseconds
        )
    }
}
