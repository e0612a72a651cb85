import Foundation

/// How what the App Store says of a subscription maps onto the store-neutral model: Get All Subscription Statuses'
/// `status` with the latest signed transaction and renewal info, or, without the Server API, a signed transaction
/// (and renewal info, when a notification carries it) applied as signed. Pure: no I/O, `now` given.
package enum AppleSubscriptionReading {
    /// Apple's subscription statuses (`status` of Get All Subscription Statuses' `lastTransactions`).
    package enum Status: Int, Sendable, CaseIterable {
        /// 1: active.
        case active = 1
        /// 2: expired.
        case expired = 2
        /// 3: in the billing retry period.
        case billingRetry = 3
        /// 4: in the billing grace period.
        case gracePeriod = 4
        /// 5: revoked (refunded, or Family Sharing ended).
        case revoked = 5
    }

    /// The subscription `transaction` belongs to, as `status` (when Apple gave one) and `renewal` say at `now`;
    /// nil for a transaction that is no subscription's period or that an upgrade replaced (it says nothing of the
    /// subscription now).
    package static func snapshot(
        of transaction: SignedTransaction,
        status: Status? = nil,
        renewal: AppleRenewalInfo? = nil,
        now: Date
    ) -> SubscriptionSnapshot? {
        guard let period = transaction.period, !period.isUpgraded else { return nil }
        let expires = Date(timeIntervalSince1970: Double(period.expiresDateMilliseconds) / 1000)
        let grace = renewal?.gracePeriodExpires
        let state: SubscriptionState
        var entitledUntil: Date? = nil
        switch status {
        case .active?:
            state = .active
            entitledUntil = expires
        case .gracePeriod?:
            state = .gracePeriod
            entitledUntil = max(grace ?? expires, expires)
        case .billingRetry?:
            state = .billingRetry
        case .expired?:
            state = .expired
        case .revoked?:
            state = .revoked
        case nil:
            if transaction.revocationDateMilliseconds != nil {
                state = .revoked
            } else if expires > now {
                state = .active
                entitledUntil = expires
            } else if renewal?.isInBillingRetry == true {
                if let grace, grace > now {
                    state = .gracePeriod
                    entitledUntil = grace
                } else {
                    state = .billingRetry
                }
            } else {
                state = .expired
            }
        }
        let renewsTo = renewal?.autoRenewProductID.flatMap { $0 == transaction.productID ? nil : $0 }
        return SubscriptionSnapshot(
            subscriptionID: "apple:" + transaction.originalTransactionID,
            store: .apple,
            productID: transaction.productID,
            renewsTo: renewsTo,
            groupID: period.groupID,
            state: state,
            entitledUntil: entitledUntil,
            expiresAt: expires,
            autoRenew: state == .expired || state == .revoked ? false : (renewal?.autoRenews ?? true),
            environment: transaction.environment,
            ownership: transaction.details.ownership == "family_shared" ? "family_shared" : "purchased",
            latestTransactionID: transaction.transactionID,
            storeTime: max(transaction.signedDate, renewal?.signedDate ?? transaction.signedDate)
        )
    }
}
