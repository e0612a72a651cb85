import Foundation

/// Decides what a verified receipt delivers. A pure function of the store's answer, the orders and the ledger.
package struct DeliveryPlanner: Sendable {
    /// How long a purchase may predate its order's checkout (clock skew between the game server and the store).
    package var purchaseSkew: Duration
    /// The app's bundle id: a receipt of any other bundle delivers nothing (an empty one matches no receipt).
    package var expectedBundleID: String
    /// Whether sandbox purchases may deliver.
    package var sandbox: SandboxPolicy
    /// Whether a subscription another account presents moves to it.
    package var subscriptionRestore: SubscriptionRestore

    /// Creates a planner.
    package init(
        purchaseSkew: Duration,
        expectedBundleID: String,
        sandbox: SandboxPolicy = .accept,
        subscriptionRestore: SubscriptionRestore = .keep
    ) {
        self.purchaseSkew = purchaseSkew
        self.expectedBundleID = expectedBundleID
        self.sandbox = sandbox
        self.subscriptionRestore = subscriptionRestore
    }

    /// Why purchases a store vouched for are still `invalid`, or `nil` when they may deliver.
    package func rejection(of verified: VerifiedPurchases) -> String? {
        // Google answers only for the package it was asked about; the App Store's answers name their bundle.
        if verified.store == .apple, expectedBundleID.isEmpty || verified.bundleID != expectedBundleID {
            return "bundle is \(verified.bundleID ?? "(none)"), not \(expectedBundleID)"
        }
        if verified.environment == .sandbox && sandbox == .reject {
            return "sandbox purchase refused (RECEIPTD_SANDBOX=reject)"
        }
        return nil
    }

    /// Plans deliveries of a receipt's `entries` (each transaction once, as `AppleVerifyResponse.allTransactions`
    /// gives them) for `order` (the job's order) first, then for the user's `otherOpenOrders`, oldest first.
    ///
    /// An entry pays an order when the product matches, it is not refunded, its id is genuine, its copies in the
    /// answer agree, it is not in `alreadyDelivered`, its original purchase was not first delivered to another user
    /// (`firstOwners` maps original transaction ids to their first user), it carries the order's app account token
    /// (App Store; a transaction that `requiresOrderToken` needs the order to have one) or account id (Google Play)
    /// when the order has one, and, for an order created at checkout, it was bought no earlier than the checkout
    /// minus the skew. A purchase never delivered whose app account token is the token of some order
    /// (`tokenOwners` maps such tokens to their orders' users) is that order's player's: another player presenting it
    /// gets nothing and has presented another player's purchase, and its player's own input pays only an order
    /// carrying the token (else it is their unclaimed payment). An order first seen with its receipt has no such
    /// bound: a receipt that arrives hours after the payment still settles it, and the ledger alone keeps each
    /// transaction to one delivery. A transaction pays all its units to the first order it fits. What could
    /// deliver but paid no order is the plan's `unclaimed`.
    package func plan(
        _ entries: [VerifiedPurchase],
        for user: String,
        order: OrderSnapshot,
        otherOpenOrders: [OrderSnapshot],
        alreadyDelivered: Set<String>,
        firstOwners: [String: String] = [:],
        tokenOwners: [UUID: Set<String>] = [:]
    ) -> DeliveryPlan {
        var foreign: [DeliveryPlan.ForeignPurchase] = []
        var restored: [DeliveryPlan.ForeignPurchase] = []
        // Before its first delivery a purchase belongs to the player whose order carries its app account token.
        let tokenOwner = { (entry: VerifiedPurchase) -> Set<String>? in
            guard firstOwners[entry.originalTransactionID] == nil, let token = entry.appAccountToken else { return nil }
            return tokenOwners[token]
        }
        for entry in entries where entry.hasGenuineID && !entry.details.isFamilyShared {
            guard let owners = tokenOwner(entry), !owners.contains(user), let owner = owners.min(),
                !foreign.contains(where: { $0.originalTransactionID == entry.originalTransactionID })
            else { continue }
            foreign.append(.init(originalTransactionID: entry.originalTransactionID, ownerUserID: owner, byToken: true))
        }
        // A family-shared copy (Family Sharing) is its presenter's entitlement, not a payment: it has no first owner,
        // is nobody's foreign purchase, and never becomes an unclaimed payment. A subscription another account
        // presents is a restore on a shared device, not a foreign purchase: it costs nobody trust.
        for entry in entries where entry.hasGenuineID && !entry.details.isFamilyShared {
            guard let owner = firstOwners[entry.originalTransactionID], owner != user,
                !(foreign + restored).contains(where: { $0.originalTransactionID == entry.originalTransactionID })
            else { continue }
            if entry.subscription != nil {
                restored.append(.init(originalTransactionID: entry.originalTransactionID, ownerUserID: owner))
            } else {
                foreign.append(.init(originalTransactionID: entry.originalTransactionID, ownerUserID: owner))
            }
        }
        var available =
            entries
            .filter { $0.hasGenuineID && !$0.isCancelled && $0.conflictingFields.isEmpty }
            .filter { $0.quantity != nil && $0.purchaseDateMilliseconds != nil }
            .filter { !alreadyDelivered.contains($0.transactionID) }
            .filter { $0.details.isFamilyShared || (firstOwners[$0.originalTransactionID].map { $0 == user } ?? true) }
            .filter { tokenOwner($0)?.contains(user) ?? true }
            .sorted {
                ($0.purchaseDateMilliseconds!, $0.transactionID) < ($1.purchaseDateMilliseconds!, $1.transactionID)
            }
        let others =
            otherOpenOrders
            .filter { $0.orderID != order.orderID }
            .sorted { ($0.createdAtMilliseconds, $0.orderID) < ($1.createdAtMilliseconds, $1.orderID) }

        var deliveries: [DeliveryPlan.Delivery] = []
        var results: [DeliveryPlan.OrderResult] = []
        for candidate in [order] + others {
            let paid = take(
                for: candidate,
                from: &available,
                isJobsOrder: candidate.orderID == order.orderID,
                tokenClaimed: { tokenOwner($0) != nil }
            )
            deliveries += paid
            let delivered = candidate.deliveredQuantity + paid.reduce(0) { $0 + $1.quantity }
            if candidate.orderID == order.orderID {
                results.append(
                    .init(
                        orderID: order.orderID,
                        deliveredQuantity: delivered,
                        outcome: outcome(delivered: delivered, of: order, receiptIsEmpty: entries.isEmpty)
                    )
                )
            } else if !paid.isEmpty {
                results.append(
                    .init(
                        orderID: candidate.orderID,
                        deliveredQuantity: delivered,
                        outcome: delivered >= candidate.quantity ? .full : .partial
                    )
                )
            }
        }
        let renewals = renewalDeliveries(
            from: &available,
            among: entries,
            for: user,
            paid: deliveries,
            alreadyDelivered: alreadyDelivered,
            firstOwners: firstOwners
        )
        deliveries += renewals
        results += renewals.map { .init(orderID: $0.orderID, deliveredQuantity: $0.quantity, outcome: .full) }
        var owned = Set(firstOwners.keys)
        let shared = Set(entries.filter(\.details.isFamilyShared).map(\.transactionID))
        let newOwners = deliveries.filter {
            !shared.contains($0.transactionID) && owned.insert($0.originalTransactionID).inserted
        }
        let refused = available.filter { entry in
            entry.requiresOrderToken && entry.productID == order.productID && !Self.carriesToken(of: order, entry)
        }
        return DeliveryPlan(
            deliveries: deliveries,
            orderResults: results,
            foreignPurchases: foreign,
            newOwners: newOwners,
            unclaimed: available.filter { !$0.details.isFamilyShared },
            refusedWithoutToken: refused,
            transfers: subscriptionRestore == .transfer
                ? restored.compactMap { restore in
                    entries.first { $0.originalTransactionID == restore.originalTransactionID }?.subscription
                        .map { DeliveryPlan.Transfer(subscriptionID: $0.subscriptionID, from: restore.ownerUserID) }
                } : [],
            renewalOrders: renewals.map { renewal in
                DeliveryPlan.RenewalOrder(
                    orderID: renewal.orderID,
                    productID: entries.first { $0.transactionID == renewal.transactionID }?.productID ?? ""
                )
            }
        )
    }

    /// The order every later period of a subscription is: `renewal:<transaction_id>`, paid by that period alone.
    package static func renewalOrderID(of transactionID: String) -> String { renewalPrefix + transactionID }

    private static let renewalPrefix = "renewal:"

    /// The periods of `user`'s subscriptions that paid no order (a receipt lists every period of a subscription):
    /// each becomes its own renewal order, delivered here. A period is one when an earlier period of its
    /// subscription in the same answer is delivered (in the ledger, or by this plan) and the subscription is the
    /// user's (the ledger's first owner, or this plan's). Periods before the first the ledger knows (bought before
    /// receiptd, which an older system delivered) stay as they are.
    private func renewalDeliveries(
        from available: inout [VerifiedPurchase],
        among entries: [VerifiedPurchase],
        for user: String,
        paid: [DeliveryPlan.Delivery],
        alreadyDelivered: Set<String>,
        firstOwners: [String: String]
    ) -> [DeliveryPlan.Delivery] {
        guard available.contains(where: { $0.subscription != nil }) else { return [] }
        let paidIDs = Set(paid.map(\.transactionID))
        // The earliest delivered period of each subscription the user holds.
        var anchors: [String: Int64] = [:]
        for entry in entries where entry.subscription != nil {
            guard let purchased = entry.purchaseDateMilliseconds else { continue }
            let original = entry.originalTransactionID
            let delivered =
                paidIDs.contains(entry.transactionID)
                || (alreadyDelivered.contains(entry.transactionID) && firstOwners[original] == user)
            if delivered, anchors[original].map({ purchased < $0 }) ?? true { anchors[original] = purchased }
        }
        var renewals: [DeliveryPlan.Delivery] = []
        available.removeAll { entry in
            // A period the store calls a renewal of a subscription the ledger gave this user is its own order even
            // when the answer holds no earlier period (a signed transaction alone, presented for a new checkout).
            let ownRenewal = entry.isRenewal && firstOwners[entry.originalTransactionID] == user
            guard entry.subscription != nil,
                ownRenewal
                    || anchors[entry.originalTransactionID].map({ $0 < entry.purchaseDateMilliseconds! }) ?? false
            else { return false }
            renewals.append(
                .init(
                    transactionID: entry.transactionID,
                    originalTransactionID: entry.originalTransactionID,
                    orderID: Self.renewalOrderID(of: entry.transactionID),
                    quantity: entry.quantity!,
                    purchaseDateMilliseconds: entry.purchaseDateMilliseconds!
                )
            )
            return true
        }
        return renewals
    }

    /// Whether `entry` carries what ties it to `order`'s account: the order's app account token when it has one
    /// (or must have one: for a transaction that `requiresOrderToken`, or whose token is an order's, `tokenClaimed`),
    /// and its Google account id when it has one.
    private static func carriesToken(
        of order: OrderSnapshot,
        _ entry: VerifiedPurchase,
        tokenClaimed: Bool = false
    ) -> Bool {
        let token =
            entry.requiresOrderToken || tokenClaimed
            ? order.appAccountToken != nil && entry.appAccountToken == order.appAccountToken
            : order.appAccountToken == nil || entry.appAccountToken == order.appAccountToken
        return token && (order.accountID == nil || entry.accountID == order.accountID)
    }

    private func take(
        for order: OrderSnapshot,
        from available: inout [VerifiedPurchase],
        isJobsOrder: Bool,
        tokenClaimed: (VerifiedPurchase) -> Bool
    ) -> [DeliveryPlan.Delivery] {
        var remaining = order.quantity - order.deliveredQuantity
        let earliest = order.checkoutAtMilliseconds.map { $0 - Int64(purchaseSkew.seconds * 1000) } ?? .min
        var paid: [DeliveryPlan.Delivery] = []
        var index = available.startIndex
        while remaining > 0, index < available.endIndex {
            let entry = available[index]
            // A renewal order is paid by its own period alone; a subscription's later period pays the order it was
            // sent for (a resubscription's checkout), else its own renewal order, never another open order. A period
            // the store calls a renewal pays no checkout at all, whoever presents it.
            let renewal = order.orderID.hasPrefix(Self.renewalPrefix)
            let laterPeriod = entry.subscription != nil && entry.transactionID != entry.originalTransactionID
            guard entry.productID == order.productID, entry.purchaseDateMilliseconds! >= earliest,
                // A renewal order carries no token: its own period alone pays it, whoever's token that carries.
                Self.carriesToken(of: order, entry, tokenClaimed: !renewal && tokenClaimed(entry)),
                renewal
                    ? order.orderID == Self.renewalOrderID(of: entry.transactionID)
                    : !entry.isRenewal && (isJobsOrder || !laterPeriod)
            else {
                index += 1
                continue
            }
            // Every unit the transaction paid for is delivered, even beyond the order's quantity: the player paid for them.
            paid.append(
                .init(
                    transactionID: entry.transactionID,
                    originalTransactionID: entry.originalTransactionID,
                    orderID: order.orderID,
                    quantity: entry.quantity!,
                    purchaseDateMilliseconds: entry.purchaseDateMilliseconds!
                )
            )
            remaining -= entry.quantity!
            available.remove(at: index)
        }
        return paid
    }

    private func outcome(delivered: Int, of order: OrderSnapshot, receiptIsEmpty: Bool) -> OrderOutcome {
        if delivered >= order.quantity { return .full }
        if delivered > 0 { return .partial }
        return receiptIsEmpty ? .noInApp : .unmatched
    }
}
