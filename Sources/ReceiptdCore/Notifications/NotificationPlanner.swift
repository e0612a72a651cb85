/// Decides what a store notification does to the ledger, from its type, subtype and verified transaction: no
/// I/O, so every rule is tested on its own.
package struct NotificationPlanner: Sendable {
    /// Apple's types about auto-renewable subscriptions: each applies the subscription's news (any other type about
    /// an auto-renewable transaction does too, beside its own action).
    package static let subscriptionTypes: Set<String> = [
        "SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW",
        "EXPIRED", "GRACE_PERIOD_EXPIRED", "OFFER_REDEEMED", "PRICE_INCREASE", "RENEWAL_EXTENDED",
        "RENEWAL_EXTENSION",
    ]

    /// Whether subscription news asks for a re-read from the store (the daemon has App Store Server API credentials
    /// and reads subscriptions again); without, the news is applied as signed.
    package var rereadsSubscriptions: Bool

    /// Creates a planner.
    package init(rereadsSubscriptions: Bool = false) {
        self.rereadsSubscriptions = rereadsSubscriptions
    }

    /// The action for a notification of `store` with `type` (and `subtype`); `transaction` is its verified
    /// transaction, if it has one; `hasData` false for one without data (a summary); `signedAtMilliseconds` is
    /// when the store signed it (a revocation without its own date dates from then); `appTransactionID` is the
    /// verified app transaction's id, when the notification carries one (`RESCIND_CONSENT`'s `appData`).
    package func action(
        store: Store,
        type: String,
        subtype: String?,
        transaction: NotifiedTransaction?,
        hasData: Bool = true,
        appTransactionID: String? = nil,
        signedAtMilliseconds: Int64
    ) -> NotificationAction {
        // Google's notifications are planned from their own payload (`googleAction`).
        guard store == .apple else { return .record }
        // About the app, not a purchase: it has `appData` and no `data`.
        if type == "RESCIND_CONSENT" {
            guard let appTransactionID else { return .fail("\(type) without appData.signedAppTransactionInfo") }
            return .rescindConsent(appTransactionID: appTransactionID)
        }
        guard hasData else { return .ignore }
        if Self.subscriptionTypes.contains(type) {
            guard let transaction else { return .ignore }
            return .applySubscription(transaction)
        }
        switch type {
        case "REFUND", "REVOKE":
            guard let transaction else { return .fail("\(type) without a transaction") }
            // A prorated refund of under the whole purchase revokes a share of a row that stays delivered; one of
            // 100% (or without a readable share) is a refund of all of it.
            let prorated =
                type == "REFUND" && transaction.revocationType == "REFUND_PRORATED"
                ? transaction.revocationPercentage.flatMap { (1..<100_000).contains($0) ? $0 : nil } : nil
            let reason =
                if type == "REVOKE" {
                    "family_sharing"
                } else if prorated != nil {
                    RevokedTransactionKey.proratedReason
                } else {
                    transaction.revocationReason == 1 ? "refund_app_issue" : "refund_other"
                }
            return .revoke(
                transactionID: transaction.transactionID,
                reason: reason,
                percentage: prorated,
                revokedAtMilliseconds: transaction.revocationDateMilliseconds ?? signedAtMilliseconds
            )
        case "REFUND_REVERSED":
            guard let transaction else { return .fail("\(type) without a transaction") }
            return .reinstate(transactionID: transaction.transactionID)
        case "CONSUMPTION_REQUEST":
            guard let transaction else { return .fail("\(type) without a transaction") }
            return .requestConsumption(transaction)
        case "ONE_TIME_CHARGE":
            guard let transaction else { return .fail("\(type) without a transaction") }
            guard transaction.productID?.isEmpty == false else { return .fail("\(type): transaction has no productId") }
            return .settleCharge(transaction)
        default:
            // REFUND_DECLINED, TEST, and one-time types with nothing for the ledger.
            return .record
        }
    }
}
