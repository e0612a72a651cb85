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

    /// One period of an auto-renewable as a signed transaction or a receipt's entry says it.
    package struct Period: Sendable, Equatable {
        /// The period's transaction.
        package var transactionID: String
        /// The subscription's original transaction.
        package var originalTransactionID: String
        /// The period's product.
        package var productID: String
        /// `expiresDate` / `expires_date_ms`, `subscriptionGroupIdentifier`, `isUpgraded`.
        package var terms: SignedTransaction.SubscriptionTerms
        /// Refunded or revoked.
        package var isRevoked: Bool
        /// `Production` or `Sandbox`.
        package var environment: String
        /// `family_shared` for a member of the buyer's family, else `purchased`.
        package var ownership: String
        /// The store's time of what it says: a signed transaction's `signedDate`, a receipt's request date.
        package var storeTime: Date

        /// The period a signed transaction pays; nil for a transaction of no auto-renewable.
        package init?(_ transaction: SignedTransaction) {
            guard let terms = transaction.period else { return nil }
            self.init(
                transactionID: transaction.transactionID,
                originalTransactionID: transaction.originalTransactionID,
                productID: transaction.productID,
                terms: terms,
                isRevoked: transaction.revocationDateMilliseconds != nil,
                environment: transaction.environment,
                ownership: transaction.details.ownership == "family_shared" ? "family_shared" : "purchased",
                storeTime: transaction.signedDate
            )
        }

        /// Creates a period.
        package init(
            transactionID: String,
            originalTransactionID: String,
            productID: String,
            terms: SignedTransaction.SubscriptionTerms,
            isRevoked: Bool,
            environment: String,
            ownership: String,
            storeTime: Date
        ) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.terms = terms
            self.isRevoked = isRevoked
            self.environment = environment
            self.ownership = ownership
            self.storeTime = storeTime
        }
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
        Period(transaction).flatMap { snapshot(of: $0, status: status, renewal: renewal, now: now) }
    }

    /// The subscription `period` belongs to, as `status` and `renewal` say at `now`; nil for a period an upgrade
    /// replaced.
    package static func snapshot(
        of transaction: Period,
        status: Status? = nil,
        renewal: AppleRenewalInfo? = nil,
        now: Date
    ) -> SubscriptionSnapshot? {
        let period = transaction.terms
        guard !period.isUpgraded else { return nil }
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
            if transaction.isRevoked {
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
        var snapshot = SubscriptionSnapshot(
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
            ownership: transaction.ownership,
            latestTransactionID: transaction.transactionID,
            storeTime: max(transaction.storeTime, renewal?.signedDate ?? transaction.storeTime)
        )
        snapshot.renewalKnown = renewal != nil
        return snapshot
    }
}
