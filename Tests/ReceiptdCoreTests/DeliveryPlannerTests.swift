import Testing
@testable import ReceiptdCore

@Suite struct DeliveryPlannerTests {
    let planner = DeliveryPlanner(purchaseSkewSeconds: 300, expectedBundleID: "com.example.game")
    let created: Int64 = 1_700_000_000_000

    private func order(_ id: String = "o1", product: String = "gems", quantity: Int = 1, delivered: Int = 0, created: Int64? = nil) -> OrderSnapshot {
        OrderSnapshot(orderID: id, productID: product, quantity: quantity, createdAtMilliseconds: created ?? self.created,
                      deliveredQuantity: delivered)
    }

    private func entry(_ id: String, product: String = "gems", quantity: Int? = 1, at offset: Int64 = 1000, cancelled: Bool = false) -> AppleTransaction {
        AppleTransaction(transactionID: id, productID: product, quantity: quantity, purchaseDateMilliseconds: created + offset,
                         isCancelled: cancelled)
    }

    private func response(_ entries: [AppleTransaction]?, latest: [AppleTransaction]? = nil, bundle: String = "com.example.game") -> AppleVerifyResponse {
        AppleVerifyResponse(status: 0, receipt: .init(bundleID: bundle, inApp: entries), latestReceiptInfo: latest)
    }

    @Test func onePayingEntryMakesTheOrderFull() {
        let plan = planner.plan(response([entry("100")]), order: order(), otherOpenOrders: [], alreadyDelivered: [])
        #expect(plan.deliveries.map(\.transactionID) == ["100"])
        #expect(plan.orderResults == [.init(orderID: "o1", deliveredQuantity: 1, outcome: .full)])
    }

    @Test func fewerUnitsThanOrderedIsPartialAndOldestGoFirst() {
        let plan = planner.plan(response([entry("300", at: 3000), entry("200", at: 2000), entry("400", at: 4000)]),
                                order: order(quantity: 2), otherOpenOrders: [], alreadyDelivered: ["200"])
        #expect(plan.deliveries.map(\.transactionID) == ["300", "400"])
        #expect(plan.orderResults.first?.outcome == .full)
        let partial = planner.plan(response([entry("300")]), order: order(quantity: 3), otherOpenOrders: [], alreadyDelivered: [])
        #expect(partial.orderResults == [.init(orderID: "o1", deliveredQuantity: 1, outcome: .partial)])
    }

    @Test func entryQuantityCounts() {
        let plan = planner.plan(response([entry("1", quantity: 3), entry("2", at: 5000)]), order: order(quantity: 3),
                                otherOpenOrders: [], alreadyDelivered: [])
        #expect(plan.deliveries.map(\.transactionID) == ["1"])
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 3, outcome: .full))
    }

    @Test func emptyOrAbsentInAppIsNoInApp() {
        for entries in [[], nil] as [[AppleTransaction]?] {
            let plan = planner.plan(response(entries), order: order(), otherOpenOrders: [], alreadyDelivered: [])
            #expect(plan.orderResults.first?.outcome == .noInApp)
            #expect(plan.deliveries.isEmpty)
        }
    }

    @Test func entriesThatDoNotPayAreUnmatched() {
        let cases: [AppleTransaction] = [
            entry("1", product: "shield"),                     // another product
            entry("2", cancelled: true),                       // refunded
            entry("3", at: -301_000),                          // bought before the order, beyond the skew
            entry("5E1F2A40-1111-2222-3333-444455556666"),     // forged id
            entry("6", quantity: nil),                         // unreadable quantity
        ]
        for paying in cases {
            let plan = planner.plan(response([paying]), order: order(), otherOpenOrders: [], alreadyDelivered: [])
            #expect(plan.orderResults.first?.outcome == .unmatched, "\(paying)")
            #expect(plan.deliveries.isEmpty)
        }
        let replay = planner.plan(response([entry("7")]), order: order(), otherOpenOrders: [], alreadyDelivered: ["7"])
        #expect(replay.orderResults.first?.outcome == .unmatched)
    }

    @Test func purchaseWithinTheSkewStillPays() {
        let plan = planner.plan(response([entry("1", at: -299_000)]), order: order(), otherOpenOrders: [], alreadyDelivered: [])
        #expect(plan.orderResults.first?.outcome == .full)
    }

    @Test func mergedPaymentSettlesTheUsersOtherOrders() {
        let other = order("o2", product: "shield", created: created - 10)
        let untouched = order("o3", product: "sword")
        let plan = planner.plan(response([entry("1"), entry("2", product: "shield")]), order: order(),
                                otherOpenOrders: [other, untouched], alreadyDelivered: [])
        #expect(plan.deliveries.map(\.orderID).sorted() == ["o1", "o2"])
        #expect(plan.orderResults.map(\.orderID) == ["o1", "o2"])
        #expect(plan.ordersCompletedElsewhere == ["o2"])
    }

    @Test func latestReceiptInfoIsReadAndDeduplicated() {
        let plan = planner.plan(response([entry("1")], latest: [entry("1"), entry("2")]), order: order(quantity: 3),
                                otherOpenOrders: [], alreadyDelivered: [])
        #expect(plan.deliveries.map(\.transactionID) == ["1", "2"])
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 2, outcome: .partial))
    }

    @Test func earlierDeliveriesCountTowardsTheOrder() {
        let plan = planner.plan(response([entry("9")]), order: order(quantity: 2, delivered: 1), otherOpenOrders: [], alreadyDelivered: [])
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 2, outcome: .full))
        let nothingNew = planner.plan(response([entry("9")]), order: order(quantity: 2, delivered: 1), otherOpenOrders: [],
                                      alreadyDelivered: ["9"])
        #expect(nothingNew.orderResults.first?.outcome == .partial)
    }

    @Test func anotherBundleIsRejected() {
        #expect(planner.rejection(of: response([entry("1")], bundle: "com.evil.app")) != nil)
        #expect(planner.rejection(of: response([entry("1")])) == nil)
        #expect(DeliveryPlanner(purchaseSkewSeconds: 0).rejection(of: response([], bundle: "x")) == nil)
    }
}
