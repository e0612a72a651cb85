/// What `receiptd show ORDER` shows: the order, each job with each of its attempts, the ledger rows, and the
/// store notifications about them.
package struct OrderDetail: Sendable, Codable, Equatable {
    /// The `iap.orders` row. Times are ISO-8601, UTC, throughout.
    package struct Order: Sendable, Codable, Equatable {
        /// `order_id`.
        package var orderID: String
        /// The paying user.
        package var userID: String
        /// The product bought.
        package var productID: String
        /// Units ordered.
        package var quantity: Int
        /// Units delivered so far.
        package var deliveredQuantity: Int
        /// `full`, `partial`, … or `nil` while unsettled.
        package var outcome: String?
        /// When the order was first enqueued.
        package var createdAt: String
        /// When the outcome was last set.
        package var outcomeAt: String?
    }

    /// One `iap.jobs` row, oldest first.
    package struct Job: Sendable, Codable, Equatable {
        /// `iap.jobs.id`.
        package var id: Int64
        /// What it verifies: a receipt or a StoreKit 2 transaction.
        package var kind: JobKind
        /// The job's state.
        package var state: JobState
        /// Attempts counted so far.
        package var attempts: Int
        /// The Apple environment of the final answer.
        package var environment: String?
        /// When the job was created.
        package var createdAt: String
        /// When a pending job is due.
        package var runAt: String
        /// When it last started running.
        package var startedAt: String?
        /// When it finished.
        package var finishedAt: String?
        /// The latest error.
        package var lastError: String?
        /// The job that replaced it.
        package var supersededBy: Int64?
        /// The daemon running it.
        package var lockedBy: String?
        /// Its rows of `iap.attempts`, in order.
        package var attemptLog: [Attempt]
    }

    /// One `iap.attempts` row.
    package struct Attempt: Sendable, Codable, Equatable {
        /// 1 for the first attempt.
        package var attempt: Int
        /// `verified`, `retry`, `rejected` or `abandoned`.
        package var result: String
        /// Apple's JSON status, if Apple answered with JSON.
        package var appleStatus: Int?
        /// The HTTP status, if an HTTP answer came.
        package var httpStatus: Int?
        /// The Apple environment that answered.
        package var environment: String?
        /// How long the attempt took.
        package var durationMs: Int
        /// `transport`, `http`, `garbled`, …
        package var errorClass: String?
        /// What went wrong.
        package var error: String?
        /// The daemon that made it.
        package var daemon: String?
        /// When it finished.
        package var finishedAt: String
    }

    /// One `iap.deliveries` row of this order.
    package struct Delivery: Sendable, Codable, Equatable {
        /// Apple's transaction id, the ledger key.
        package var transactionID: String
        /// The job whose receipt delivered it.
        package var jobID: Int64?
        /// Units applied to the order.
        package var quantity: Int
        /// When the purchase was made.
        package var purchaseDate: String?
        /// `Production` or `Sandbox`.
        package var environment: String?
        /// When it was delivered.
        package var deliveredAt: String
        /// When the store revoked it (a refund, a family-sharing revoke, a void); `nil` while it stands.
        package var revokedAt: String? = nil
        /// Why: `refund_other`, `refund_app_issue`, `family_sharing`, or Google's reason.
        package var revocationReason: String? = nil
        /// The share revoked, in thousandths of a percent (50000 is half): Apple's prorated refund, Google's partial
        /// refunds; `nil` for all of it (once revoked) or none.
        package var revocationPercentage: Int? = nil
        /// When the game confirmed it handled the revocation (`iap.mark_revocation_handled`).
        package var revocationHandledAt: String? = nil
        /// Units revoked: all of them once `revokedAt` is set, fewer after Google's quantity-based partial refunds.
        package var revokedQuantity = 0
        /// Units whose revocation the game confirmed it handled.
        package var revocationHandledQuantity = 0
        /// The kind it was settled as (`consumable`, `non_consumable`, …), where known.
        package var productKind: String? = nil
        /// `purchased` or `family_shared`, where the store says.
        package var ownership: String? = nil
        /// The transaction's total in the currency's units (`0.99`), where the store says.
        package var price: String? = nil
        /// The price's ISO 4217 code.
        package var currency: String? = nil
        /// `introductory`, `promotional`, `offer_code`, `win_back`, where an offer applied.
        package var offerType: String? = nil
        /// The offer's identifier.
        package var offerID: String? = nil
        /// Google's purchase option.
        package var purchaseOptionID: String? = nil

        /// The price for people: `4.99 USD`.
        package var priceText: String? {
            price.map { price in currency.map { "\(price) \($0)" } ?? price }
        }

        /// The offer for people: `offer_code LAUNCH2026`.
        package var offerText: String? {
            offerType.map { type in offerID.map { "\(type) \($0)" } ?? type } ?? offerID
        }
    }

    /// The order's `iap.provisional_grants` row: its product granted before verification ended.
    package struct ProvisionalGrant: Sendable, Codable, Equatable {
        /// `unconfirmed`, `confirmed`, `refuted` or `cancelled`.
        package var state: ProvisionalGrantState
        /// `store_failing` or `breaker_open`.
        package var cause: ProvisionalGrantCause
        /// The product granted.
        package var productID: String
        /// Units granted.
        package var quantity: Int
        /// The job that was failing.
        package var jobID: Int64?
        /// When it was granted.
        package var createdAt: String
        /// When the game marked `provisional:<order_id>` granted; `nil` while it has not.
        package var grantedAt: String?
        /// When verification confirmed or refuted it, or it was cancelled.
        package var resolvedAt: String?
        /// The order's outcome that refuted it.
        package var refutedBy: String?
        /// Confirmed by a payment of other units than it granted, after the game granted it: exchanged for the real
        /// rows, and handed back (`provisional_replaced`).
        package var replaced = false
        /// When the game handled the revocation of a refuted, cancelled or replaced grant
        /// (`iap.mark_revocation_handled`).
        package var revocationHandledAt: String?
    }

    /// The order.
    package var order: Order
    /// Its jobs, oldest first.
    package var jobs: [Job]
    /// Its deliveries, oldest first.
    package var deliveries: [Delivery]
    /// The store notifications about its deliveries' transactions, oldest first.
    package var notifications: [NotificationSummary] = []
    /// Its provisional grant, if it had one.
    package var provisionalGrant: ProvisionalGrant? = nil
    /// The webhook events about it, in the order written.
    package var webhookEvents: [WebhookEventSummary] = []
    /// The Set App Account Token calls its assigned payments owe Apple (`iap.app_account_token_calls`).
    package var appAccountTokenCalls: [AppAccountTokenCall] = []
    /// The subscriptions it started or paid a period of, with their periods and history.
    package var subscriptions: [SubscriptionSummary] = []

    /// One Set App Account Token call: Apple told (or to be told) that a payment assigned to this order is the
    /// player's.
    package struct AppAccountTokenCall: Sendable, Codable, Equatable {
        /// The assigned payment's ledger id.
        package var transactionID: String
        /// The purchase's original transaction id, which the call names.
        package var originalTransactionID: String
        /// `pending`, `sent` or `failed` (Apple refused it for good).
        package var state: String
        /// Tries so far.
        package var attempts: Int
        /// The last failure, or Apple's refusal.
        package var lastError: String?
        /// When Apple took it.
        package var sentAt: String?
    }
}
