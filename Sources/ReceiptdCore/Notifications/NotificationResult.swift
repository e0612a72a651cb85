/// What processing did with a store notification: `iap.store_notifications.result`, set with `processed_at`.
package enum NotificationResult: String, Sendable, CaseIterable {
    /// A ledger row was revoked (or already was).
    case revoked
    /// The transaction is not in the ledger: it is remembered in `iap.revoked_transactions`, and nothing delivers
    /// it afterwards.
    case revokedUndelivered = "revoked_undelivered"
    /// A `REFUND_REVERSED` lifted a revocation.
    case reinstated
    /// A `REFUND_REVERSED` found no revocation to lift.
    case nothingToReinstate = "nothing_to_reinstate"
    /// Recorded, nothing to do (`REFUND_DECLINED`, `TEST`, other one-time types).
    case recorded
    /// Not acted on: no data (a summary), or a subscription type without a transaction.
    case ignored
    /// A consumption request was queued for the consumption sender.
    case consumptionRequested = "consumption_requested"
    /// A consumption request about a user who did not consent: nothing will be sent.
    case consumptionNotConsented = "consumption_not_consented"
    /// A chargeback review (Google's `PENDING_REFUND_REVIEW`) was recorded as a refund request: the game is asked,
    /// then Google answered.
    case refundReviewRequested = "refund_review_requested"
    /// A `ONE_TIME_CHARGE` (or Google's `ONE_TIME_PRODUCT_PURCHASED`) matched an order: a job verifies and settles
    /// it.
    case chargeEnqueued = "charge_enqueued"
    /// A `ONE_TIME_CHARGE` (or `ONE_TIME_PRODUCT_PURCHASED`) no order matched: an unclaimed payment.
    case chargeUnclaimed = "charge_unclaimed"
    /// A `ONE_TIME_CHARGE` (or `ONE_TIME_PRODUCT_PURCHASED`) whose transaction the ledger already holds.
    case chargeAlreadyDelivered = "charge_already_delivered"
    /// A `ONE_TIME_PRODUCT_CANCELED` made the job waiting on its token (or the put-off purchase notification)
    /// look again now.
    case jobWoken = "job_woken"
    /// A quantity-based partial refund added units to a ledger row's `revoked_quantity` (all of them revoke it).
    case partlyRevoked = "partly_revoked"
    /// Older than the news the ledger row already has (`iap.deliveries.store_time`): nothing changed.
    case superseded
    /// A `RESCIND_CONSENT` was handed to the game (`NOTIFY iap_consent_rescinded`, a `consent.rescinded`
    /// webhook); no purchase changed.
    case consentRescinded = "consent_rescinded"
    /// News of an auto-renewable subscription changed its row of `iap.subscriptions` (and asked for a re-read when
    /// the App Store Server API is configured).
    case subscriptionUpdated = "subscription_updated"
    /// A later period of a known subscription (a renewal) is its own order, `renewal:<transaction_id>`: a job
    /// verifies and settles it.
    case periodEnqueued = "period_enqueued"
    /// Processing refused it for good; `error` says why.
    case failed
}
