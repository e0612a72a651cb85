import Foundation

/// What processing does for one store notification (`NotificationPlanner`'s answer).
package enum NotificationAction: Sendable, Equatable {
    /// Revoke the transaction's ledger row, or remember it as revoked when it is not delivered yet.
    /// `reason` is `iap.deliveries.revocation_reason`; `percentage` a prorated refund's share (thousandths of a
    /// percent), nil for all of it.
    case revoke(transactionID: String, reason: String, percentage: Int?, revokedAtMilliseconds: Int64)
    /// Lift the transaction's revocation (`REFUND_REVERSED`).
    case reinstate(transactionID: String)
    /// Queue a consumption answer about the transaction (`CONSUMPTION_REQUEST`).
    case requestConsumption(NotifiedTransaction)
    /// Ask the game, then Google, about a chargeback Google wants reviewed (`PENDING_REFUND_REVIEW`).
    case requestRefundReview(GoogleRefundReviewRequest)
    /// Settle a purchase Apple reported itself (`ONE_TIME_CHARGE`) to its order, or record it as unclaimed.
    case settleCharge(NotifiedTransaction)
    /// Record an auto-renewable subscription's news (`SUBSCRIBED`, `DID_RENEW`, `EXPIRED`, …): its row of
    /// `iap.subscriptions`, and the period the transaction pays when the ledger does not hold it yet (a renewal of a
    /// known subscription its own order; a first period its checkout's, as a `ONE_TIME_CHARGE` is).
    case applySubscription(NotifiedTransaction)
    /// Settle a purchase Google reported itself (`ONE_TIME_PRODUCT_PURCHASED`, looked up) to its order, record it
    /// as unclaimed, or put a pending one with no order off.
    case settleGooglePurchase(GoogleNotifiedPurchase)
    /// Make the job (and a put-off purchase notification) waiting on a pending purchase's token look again now
    /// (`ONE_TIME_PRODUCT_CANCELED`).
    case wakeGooglePurchase(token: String)
    /// News of a Google Play subscription (any `subscriptionNotification`): the subscription whose token it names
    /// is read again from Google at once; one no client reported is settled as `purchase` says (a
    /// `SUBSCRIPTION_PURCHASED`, after its lookup), else only recorded.
    case googleSubscriptionNews(token: String, purchase: GoogleNotifiedPurchase?)
    /// A Google subscription's renewal (`SUBSCRIPTION_RENEWED`): the subscription whose token it names is read again
    /// at once. While no row has the token (its first period still on its way, or one nobody claimed) it waits, as
    /// Apple's `DID_RENEW` of an unknown subscription does, never paying the checkout its first period is for; after
    /// a day it is looked up, and its latest period (`period`, of the subscription whose first order is
    /// `originalID`) recorded as an unclaimed payment.
    case googleSubscriptionRenewed(token: String, period: GoogleNotifiedPurchase?, originalID: String?)
    /// Revoke a Google subscription's refunded period (`VOIDED_PURCHASE` of `productType` 1) as `revoke` does, and
    /// have the subscription of `token` read again at once: Google may have ended it.
    case revokeSubscriptionPeriod(transactionID: String, token: String, revokedAtMilliseconds: Int64)
    /// Revoke units of a Google ledger row (quantity-based partial refunds, `VOIDED_PURCHASE` refundType 2),
    /// remembering each refund once.
    case revokeUnits(transactionID: String, refunds: [GooglePartialRefund])
    /// Tell the game a parent or guardian withdrew consent for the player behind this app transaction
    /// (`RESCIND_CONSENT`): `NOTIFY iap_consent_rescinded` and a `consent.rescinded` webhook; no purchase changes.
    case rescindConsent(appTransactionID: String)
    /// Nothing to do beyond recording it (`recorded`).
    case record
    /// Not acted on (`ignored`).
    case ignore
    /// Refused for good: `failed`, with this reason as the row's `error`.
    case fail(String)
}
