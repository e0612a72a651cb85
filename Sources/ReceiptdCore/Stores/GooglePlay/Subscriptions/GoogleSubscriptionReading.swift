import Foundation

/// How a `purchases.subscriptionsv2.get` answer maps onto the store-neutral model: the subscription now, and every
/// period it has paid as a ledger purchase. Pure: no I/O, `now` given.
///
/// Google names the periods by their orders: the first `GPA.1234-5678-9012-34567`, the renewals `…..0`, `…..1`, ….
/// The answer gives the latest one (`latestSuccessfulOrderId`), so every period before it follows from its suffix:
/// a lookup at any time names them all, and the ledger delivers those it lacks. Google says when the subscription
/// began and when the current period ends, not when each period began: the periods are spread evenly between.
enum GoogleSubscriptionReading {
    /// The first order of `orderID`'s subscription and how many renewals `orderID` is past it:
    /// `("GPA.1-2", 0)` for `GPA.1-2`, `("GPA.1-2", 3)` for `GPA.1-2..2`.
    static func chain(of orderID: String) -> (base: String, renewals: Int) {
        guard let marker = orderID.range(of: "..", options: .backwards),
            let index = Int(orderID[marker.upperBound...]), index >= 0, !orderID[..<marker.lowerBound].isEmpty
        else { return (orderID, 0) }
        return (String(orderID[..<marker.lowerBound]), index + 1)
    }

    /// The order of the `period`-th period (0 the first) of the subscription whose first order is `base`.
    static func orderID(base: String, period: Int) -> String {
        period == 0 ? base : "\(base)..\(period - 1)"
    }

    /// The subscription `purchase` (looked up with `token`) is at `now`; nil without a line item.
    static func snapshot(of purchase: GoogleSubscriptionPurchase, token: String, now: Date) -> SubscriptionSnapshot? {
        guard let line = purchase.lineItems.first else { return nil }
        let expires = line.expiryMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        let renews = line.autoRenewEnabled ?? false
        let state: SubscriptionState
        var autoRenew = renews
        switch purchase.state {
        case .pending?: state = .pending
        case .active?: state = .active
        case .inGracePeriod?: state = .gracePeriod
        case .onHold?: state = .onHold
        case .paused?: state = .paused
        case .canceled?:
            // Cancelled: no renewal, and the service lasts until the period ends.
            state = (expires.map { $0 > now } ?? false) ? .active : .expired
            autoRenew = false
        case .expired?, .pendingPurchaseCanceled?, nil:
            state = .expired
        }
        let latest = purchase.latestPaidOrderID
        let base = latest.map { chain(of: $0).base }
        var snapshot = SubscriptionSnapshot(
            subscriptionID: "google:" + GoogleLedgerID.of(orderID: base, token: token),
            store: .google,
            productID: line.productID,
            renewsTo: line.deferredProductID.flatMap { $0 == line.productID ? nil : $0 },
            state: state,
            entitledUntil: expires,
            expiresAt: expires,
            autoRenew: state == .expired ? false : autoRenew,
            environment: purchase.isTestPurchase
                ? StoreEnvironment.sandbox.rawValue : StoreEnvironment.production.rawValue,
            latestTransactionID: GoogleLedgerID.of(orderID: latest, token: token),
            storeTime: now,
            purchaseToken: token
        )
        snapshot.replacesToken = purchase.linkedPurchaseToken
        return snapshot
    }

    /// Every period `purchase` has paid, oldest first, each a purchase of the subscription's current product
    /// whose ledger id is its order's (the token's digest for a license tester's subscription without orders, one
    /// period then). None for a subscription never paid (pending, or its pending purchase cancelled).
    static func periods(of purchase: GoogleSubscriptionPurchase, token: String, now: Date) -> [VerifiedPurchase] {
        guard let line = purchase.lineItems.first, var snapshot = snapshot(of: purchase, token: token, now: now),
            purchase.state != .pending, purchase.state != .pendingPurchaseCanceled
        else { return [] }
        let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded())
        let latest = purchase.latestPaidOrderID
        let (base, renewals) = latest.map(chain(of:)) ?? (GoogleLedgerID.of(orderID: nil, token: token), 0)
        let count = renewals + 1
        let start = purchase.startMilliseconds ?? nowMilliseconds
        let end = max(start, line.expiryMilliseconds ?? start)
        let length = (end - start) / Int64(count)
        return (0..<count).map { period in
            let periodStart = start + Int64(period) * length
            let periodEnd = period == count - 1 ? end : periodStart + length
            var verified = VerifiedPurchase(
                transactionID: latest == nil ? base : orderID(base: base, period: period),
                originalTransactionID: base,
                productID: line.productID,
                quantity: 1,
                purchaseDateMilliseconds: periodStart,
                accountID: purchase.accountID,
                store: .google
            )
            verified.details.storeKind = .autoRenewable
            verified.details.offerID = line.offerID
            verified.details.purchaseOptionID = line.basePlanID
            snapshot.expiresAt = Date(timeIntervalSince1970: Double(periodEnd) / 1000)
            verified.subscription = snapshot
            return verified
        }
    }
}
