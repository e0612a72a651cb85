/// Decides what a verified receipt delivers. A pure function of Apple's answer, the orders and the ledger.
public struct DeliveryPlanner: Sendable {
    /// Seconds a purchase may predate its order (clock skew between the game server and Apple).
    public var purchaseSkewSeconds: Double
    /// When set, a receipt for another bundle delivers nothing.
    public var expectedBundleID: String?

    /// Creates a planner.
    public init(purchaseSkewSeconds: Double, expectedBundleID: String? = nil) {
        self.purchaseSkewSeconds = purchaseSkewSeconds
        self.expectedBundleID = expectedBundleID
    }

    /// Why a verified receipt is still `invalid`, or `nil` when it may deliver.
    public func rejection(of response: AppleVerifyResponse) -> String? {
        guard let expectedBundleID, response.receipt?.bundleID != expectedBundleID else { return nil }
        return "receipt is for bundle \(response.receipt?.bundleID ?? "(none)"), not \(expectedBundleID)"
    }

    /// Plans deliveries for `order` (the job's order) first, then for the user's `otherOpenOrders`, oldest first.
    ///
    /// An entry pays an order when the product matches, it is not refunded, its id is genuine, it is not in
    /// `alreadyDelivered`, and it was bought no earlier than the order's creation minus the skew.
    public func plan(
        _ response: AppleVerifyResponse, order: OrderSnapshot, otherOpenOrders: [OrderSnapshot], alreadyDelivered: Set<String>
    ) -> DeliveryPlan {
        let entries = response.allTransactions
        var available = entries
            .filter { $0.hasGenuineID && !$0.isCancelled && $0.quantity != nil && $0.purchaseDateMilliseconds != nil }
            .filter { !alreadyDelivered.contains($0.transactionID) }
            .sorted { ($0.purchaseDateMilliseconds!, $0.transactionID) < ($1.purchaseDateMilliseconds!, $1.transactionID) }
        let others = otherOpenOrders
            .filter { $0.orderID != order.orderID }
            .sorted { ($0.createdAtMilliseconds, $0.orderID) < ($1.createdAtMilliseconds, $1.orderID) }

        var deliveries: [DeliveryPlan.Delivery] = []
        var results: [DeliveryPlan.OrderResult] = []
        for candidate in [order] + others {
            let paid = take(for: candidate, from: &available)
            deliveries += paid
            let delivered = candidate.deliveredQuantity + paid.reduce(0) { $0 + $1.quantity }
            if candidate.orderID == order.orderID {
                results.append(.init(orderID: order.orderID, deliveredQuantity: delivered,
                                     outcome: outcome(delivered: delivered, of: order, receiptIsEmpty: entries.isEmpty)))
            } else if !paid.isEmpty {
                results.append(.init(orderID: candidate.orderID, deliveredQuantity: delivered,
                                     outcome: delivered >= candidate.quantity ? .full : .partial))
            }
        }
        return DeliveryPlan(deliveries: deliveries, orderResults: results)
    }

    private func take(for order: OrderSnapshot, from available: inout [AppleTransaction]) -> [DeliveryPlan.Delivery] {
        var remaining = order.quantity - order.deliveredQuantity
        let earliest = order.createdAtMilliseconds - Int64(purchaseSkewSeconds * 1000)
        var paid: [DeliveryPlan.Delivery] = []
        var index = available.startIndex
        while remaining > 0, index < available.endIndex {
            let entry = available[index]
            guard entry.productID == order.productID, entry.purchaseDateMilliseconds! >= earliest else {
                index += 1
                continue
            }
            let units = min(entry.quantity!, remaining)
            paid.append(.init(transactionID: entry.transactionID, orderID: order.orderID, quantity: units,
                              purchaseDateMilliseconds: entry.purchaseDateMilliseconds!))
            remaining -= units
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
