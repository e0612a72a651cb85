import Foundation
import Testing

@testable import ReceiptdCore

@Suite struct DeliveryPlannerTests {
    let planner = DeliveryPlanner(purchaseSkew: .seconds(300), expectedBundleID: "com.example.game")
    let created: Int64 = 1_700_000_000_000

    func order(
        _ id: String = "o1",
        product: String = "gems",
        quantity: Int = 1,
        delivered: Int = 0,
        created: Int64? = nil,
        checkout: Int64? = nil
    ) -> OrderSnapshot {
        OrderSnapshot(
            orderID: id,
            productID: product,
            quantity: quantity,
            createdAtMilliseconds: created ?? self.created,
            deliveredQuantity: delivered,
            checkoutAtMilliseconds: checkout
        )
    }

    func entry(
        _ id: String,
        original: String? = nil,
        product: String = "gems",
        quantity: Int? = 1,
        at offset: Int64 = 1000,
        cancelled: Bool = false
    ) -> VerifiedPurchase {
        VerifiedPurchase(
            transactionID: id,
            originalTransactionID: original,
            productID: product,
            quantity: quantity,
            purchaseDateMilliseconds: created + offset,
            isCancelled: cancelled
        )
    }

    private func response(
        _ entries: [VerifiedPurchase]?,
        latest: [VerifiedPurchase]? = nil,
        bundle: String = "com.example.game"
    ) -> AppleVerifyResponse {
        AppleVerifyResponse(status: 0, receipt: .init(bundleID: bundle, inApp: entries), latestReceiptInfo: latest)
    }

    private func verified(_ response: AppleVerifyResponse, _ environment: StoreEnvironment) -> VerifiedPurchases {
        VerifiedPurchases(
            purchases: response.allTransactions,
            environment: environment,
            bundleID: response.receipt?.bundleID
        )
    }

    @Test func onePayingEntryMakesTheOrderFull() {
        let plan = planner.plan(
            response([entry("100")]).allTransactions,
            for: "u1",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.map(\.transactionID) == ["100"])
        #expect(plan.orderResults == [.init(orderID: "o1", deliveredQuantity: 1, outcome: .full)])
    }

    @Test func fewerUnitsThanOrderedIsPartialAndOldestGoFirst() {
        let plan = planner.plan(
            response([entry("300", at: 3000), entry("200", at: 2000), entry("400", at: 4000)]).allTransactions,
            for: "u1",
            order: order(quantity: 2),
            otherOpenOrders: [],
            alreadyDelivered: ["200"]
        )
        #expect(plan.deliveries.map(\.transactionID) == ["300", "400"])
        #expect(plan.orderResults.first?.outcome == .full)
        let partial = planner.plan(
            response([entry("300")]).allTransactions,
            for: "u1",
            order: order(quantity: 3),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(partial.orderResults == [.init(orderID: "o1", deliveredQuantity: 1, outcome: .partial)])
    }

    @Test func entryQuantityCounts() {
        let plan = planner.plan(
            response([entry("1", quantity: 3), entry("2", at: 5000)]).allTransactions,
            for: "u1",
            order: order(quantity: 3),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.map(\.transactionID) == ["1"])
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 3, outcome: .full))
    }

    @Test func emptyOrAbsentInAppIsNoInApp() {
        for entries in [[], nil] as [[VerifiedPurchase]?] {
            let plan = planner.plan(
                response(entries).allTransactions,
                for: "u1",
                order: order(),
                otherOpenOrders: [],
                alreadyDelivered: []
            )
            #expect(plan.orderResults.first?.outcome == .noInApp)
            #expect(plan.deliveries.isEmpty)
        }
    }

    @Test func entriesThatDoNotPayAreUnmatched() {
        let cases: [VerifiedPurchase] = [
            entry("1", product: "shield"),  // another product
            entry("2", cancelled: true),  // refunded
            entry("5E1F2A40-1111-2222-3333-444455556666"),  // forged id
            entry("6", quantity: nil),  // unreadable quantity
        ]
        for paying in cases {
            let plan = planner.plan(
                response([paying]).allTransactions,
                for: "u1",
                order: order(),
                otherOpenOrders: [],
                alreadyDelivered: []
            )
            #expect(plan.orderResults.first?.outcome == .unmatched, "\(paying)")
            #expect(plan.deliveries.isEmpty)
        }
        let replay = planner.plan(
            response([entry("7")]).allTransactions,
            for: "u1",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: ["7"]
        )
        #expect(replay.orderResults.first?.outcome == .unmatched)
    }

    @Test func aPurchaseBeforeTheCheckoutBeyondTheSkewDoesNotPay() {
        let checkedOut = order(checkout: created)
        let early = planner.plan(
            response([entry("1", at: -301_000)]).allTransactions,
            for: "u1",
            order: checkedOut,
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(early.orderResults.first?.outcome == .unmatched)
        let withinSkew = planner.plan(
            response([entry("1", at: -299_000)]).allTransactions,
            for: "u1",
            order: checkedOut,
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(withinSkew.orderResults.first?.outcome == .full)
    }

    @Test func aLateReceiptPaysAnOrderFirstSeenWithIt() {
        // The order was made when the receipt arrived, eight hours after the purchase: it has no checkout time.
        let plan = planner.plan(
            response([entry("1", at: -8 * 3_600_000)]).allTransactions,
            for: "u1",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.orderResults.first?.outcome == .full)
        #expect(plan.deliveries.map(\.transactionID) == ["1"])
    }

    @Test func aRefundInEitherCopyOfATransactionCounts() {
        for (inApp, latest) in [(entry("1"), entry("1", cancelled: true)), (entry("1", cancelled: true), entry("1"))] {
            let plan = planner.plan(
                response([inApp], latest: [latest]).allTransactions,
                for: "u1",
                order: order(),
                otherOpenOrders: [],
                alreadyDelivered: []
            )
            #expect(plan.orderResults.first?.outcome == .unmatched)
            #expect(plan.deliveries.isEmpty)
        }
    }

    @Test func copiesThatDisagreePayNothing() {
        let pairs = [
            (entry("1"), entry("1", product: "shield")), (entry("1", quantity: 1), entry("1", quantity: 5)),
            (entry("1", at: 1000), entry("1", at: 2000)),
        ]
        for (first, second) in pairs + pairs.map({ ($1, $0) }) {
            let merged = response([first], latest: [second]).allTransactions
            #expect(merged.count == 1 && !merged[0].conflictingFields.isEmpty)
            let plan = planner.plan(
                response([first], latest: [second]).allTransactions,
                for: "u1",
                order: order(),
                otherOpenOrders: [],
                alreadyDelivered: []
            )
            #expect(plan.deliveries.isEmpty, "\(first) / \(second)")
        }
    }

    @Test func anotherUsersPurchasePaysNothingAndIsFlagged() {
        let receipt = response([entry("20", original: "10"), entry("30")], latest: nil)
        let plan = planner.plan(
            receipt.allTransactions,
            for: "mallory",
            order: order(quantity: 2),
            otherOpenOrders: [],
            alreadyDelivered: [],
            firstOwners: ["10": "alice"]
        )
        #expect(plan.deliveries.map(\.transactionID) == ["30"])
        #expect(plan.foreignPurchases == [.init(originalTransactionID: "10", ownerUserID: "alice")])
        #expect(plan.newOwners.map(\.originalTransactionID) == ["30"])
        let own = planner.plan(
            receipt.allTransactions,
            for: "alice",
            order: order(quantity: 2),
            otherOpenOrders: [],
            alreadyDelivered: [],
            firstOwners: ["10": "alice"]
        )
        #expect(own.deliveries.map(\.transactionID) == ["20", "30"])
        #expect(own.foreignPurchases.isEmpty)
        #expect(own.newOwners.map(\.originalTransactionID) == ["30"])
    }

    @Test func aSubscriptionAnotherAccountPresentsIsARestoreNotAForeignPurchase() {
        var period = entry("21", original: "11", product: "vip")
        period.subscription = SubscriptionSnapshot(
            subscriptionID: "apple:11",
            store: .apple,
            productID: "vip",
            state: .active,
            entitledUntil: nil,
            expiresAt: nil,
            autoRenew: true,
            environment: "Production",
            latestTransactionID: "21",
            storeTime: Date()
        )
        for (restore, transfers) in [
            (SubscriptionRestore.keep, [DeliveryPlan.Transfer]()),
            (.transfer, [DeliveryPlan.Transfer(subscriptionID: "apple:11", from: "alice")]),
        ] {
            var planner = self.planner
            planner.subscriptionRestore = restore
            let plan = planner.plan(
                [period],
                for: "bob",
                order: order(product: "vip"),
                otherOpenOrders: [],
                alreadyDelivered: ["21"],
                firstOwners: ["11": "alice"]
            )
            // Nobody's trust is at stake, and the period pays none of bob's orders.
            #expect(plan.foreignPurchases.isEmpty && plan.deliveries.isEmpty, "\(restore)")
            #expect(plan.transfers == transfers, "\(restore)")
        }
    }

    /// A period of `original`'s subscription, as a receipt lists it.
    func period(_ id: String, of original: String, at offset: Int64) -> VerifiedPurchase {
        var period = entry(id, original: original, product: "vip", at: offset)
        period.subscription = SubscriptionSnapshot(
            subscriptionID: "apple:" + original,
            store: .apple,
            productID: "vip",
            state: .active,
            entitledUntil: nil,
            expiresAt: nil,
            autoRenew: true,
            environment: "Production",
            latestTransactionID: id,
            storeTime: Date()
        )
        return period
    }

    @Test func laterPeriodsThatPayNoOrderAreEachTheirOwnRenewalOrder() {
        let periods = [
            period("10", of: "10", at: 1000), period("11", of: "10", at: 2000), period("12", of: "10", at: 3000),
        ]
        let plan = planner.plan(
            periods,
            for: "u1",
            order: order(product: "vip", checkout: created),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.map(\.orderID) == ["o1", "renewal:11", "renewal:12"])
        #expect(
            plan.renewalOrders == [
                .init(orderID: "renewal:11", productID: "vip"), .init(orderID: "renewal:12", productID: "vip"),
            ]
        )
        #expect(plan.orderResults.map(\.outcome) == [.full, .full, .full] && plan.unclaimed.isEmpty)
        #expect(plan.newOwners.map(\.transactionID) == ["10"])

        // Known to be the user's, a period the ledger lacks after one it holds is a renewal order even when no order
        // is paid; another user's subscription, one nobody owns, or periods before the first the ledger holds (an
        // older system's) make none.
        for (owners, delivered, renewals) in [
            (["10": "u1"], ["10", "11"], ["renewal:12"]), (["10": "u2"], ["10", "11"], []), ([:], ["10", "11"], []),
            (["10": "u1"], ["12"], []),
        ] {
            let later = planner.plan(
                periods,
                for: "u1",
                order: order(),
                otherOpenOrders: [],
                alreadyDelivered: Set(delivered),
                firstOwners: owners
            )
            #expect(later.renewalOrders.map(\.orderID) == renewals, "\(owners) \(delivered)")
        }
    }

    @Test func aRenewalOrderIsPaidByItsOwnPeriodAlone() {
        let plan = planner.plan(
            [period("10", of: "10", at: 1000), period("11", of: "10", at: 2000), period("12", of: "10", at: 3000)],
            for: "u1",
            order: order("renewal:12", product: "vip"),
            otherOpenOrders: [],
            alreadyDelivered: ["10"],
            firstOwners: ["10": "u1"]
        )
        #expect(plan.deliveries.map(\.orderID) == ["renewal:12", "renewal:11"])
        #expect(plan.deliveries.map(\.transactionID) == ["12", "11"])
    }

    @Test func renewalsOfOnePurchaseRecordOneOwner() {
        let plan = planner.plan(
            response([entry("11", original: "10"), entry("12", original: "10", at: 2000)]).allTransactions,
            for: "u1",
            order: order(quantity: 2),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.count == 2)
        #expect(plan.newOwners.map(\.originalTransactionID) == ["10"])
    }

    @Test func mergedPaymentSettlesTheUsersOtherOrders() {
        let other = order("o2", product: "shield", created: created - 10)
        let untouched = order("o3", product: "sword")
        let plan = planner.plan(
            response([entry("1"), entry("2", product: "shield")]).allTransactions,
            for: "u1",
            order: order(),
            otherOpenOrders: [other, untouched],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.map(\.orderID).sorted() == ["o1", "o2"])
        #expect(plan.orderResults.map(\.orderID) == ["o1", "o2"])
        #expect(plan.ordersCompletedElsewhere == ["o2"])
    }

    @Test func latestReceiptInfoIsReadAndDeduplicated() {
        let plan = planner.plan(
            response([entry("1")], latest: [entry("1"), entry("2")]).allTransactions,
            for: "u1",
            order: order(quantity: 3),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.deliveries.map(\.transactionID) == ["1", "2"])
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 2, outcome: .partial))
    }

    @Test func earlierDeliveriesCountTowardsTheOrder() {
        let plan = planner.plan(
            response([entry("9")]).allTransactions,
            for: "u1",
            order: order(quantity: 2, delivered: 1),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(plan.orderResults.first == .init(orderID: "o1", deliveredQuantity: 2, outcome: .full))
        let nothingNew = planner.plan(
            response([entry("9")]).allTransactions,
            for: "u1",
            order: order(quantity: 2, delivered: 1),
            otherOpenOrders: [],
            alreadyDelivered: ["9"]
        )
        #expect(nothingNew.orderResults.first?.outcome == .partial)
    }

    @Test func anotherBundleIsRejected() {
        #expect(planner.rejection(of: verified(response([entry("1")], bundle: "com.evil.app"), .production)) != nil)
        #expect(planner.rejection(of: verified(response([entry("1")]), .production)) == nil)
        #expect(
            DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "").rejection(
                of: verified(response([], bundle: ""), .production)
            )
                != nil
        )
        #expect(
            DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "").rejection(
                of: verified(response([], bundle: "x"), .production)
            )
                != nil
        )
    }

    @Test func sandboxPurchasesFollowThePolicy() {
        #expect(planner.rejection(of: verified(response([entry("1")]), .sandbox)) == nil)
        let strict = DeliveryPlanner(
            purchaseSkew: .seconds(300),
            expectedBundleID: "com.example.game",
            sandbox: .reject
        )
        #expect(strict.rejection(of: verified(response([entry("1")]), .sandbox))?.contains("RECEIPTD_SANDBOX") == true)
        #expect(strict.rejection(of: verified(response([entry("1")]), .production)) == nil)
    }

    @Test func googlePurchasesHaveGoogleIdsAndMatchTheOrdersAccount() {
        var purchase = VerifiedPurchase(
            transactionID: "GPA.3345-1234-5678-90123",
            productID: "gems",
            purchaseDateMilliseconds: created + 1000,
            accountID: "acct-1",
            store: .google
        )
        var bound = order()
        bound.accountID = "acct-1"
        #expect(
            planner.plan([purchase], for: "u1", order: bound, otherOpenOrders: [], alreadyDelivered: []).orderResults
                .first?.outcome == .full
        )
        purchase.accountID = "acct-2"
        #expect(
            planner.plan([purchase], for: "u1", order: bound, otherOpenOrders: [], alreadyDelivered: []).orderResults
                .first?.outcome == .unmatched
        )
        // The same id as an App Store transaction would not be genuine.
        purchase.store = .apple
        purchase.accountID = "acct-1"
        #expect(
            planner.plan([purchase], for: "u1", order: bound, otherOpenOrders: [], alreadyDelivered: []).deliveries
                .isEmpty
        )
        // Google answers only for our package: no bundle to compare.
        let verified = VerifiedPurchases(
            purchases: [],
            environment: .production,
            bundleID: "com.example.android",
            store: .google
        )
        #expect(planner.rejection(of: verified) == nil)
    }

    @Test func anOrderWithAnAccountTokenTakesOnlyPurchasesCarryingIt() {
        let token = UUID()
        var bound = order()
        bound.appAccountToken = token
        var foreign = entry("1")
        foreign.appAccountToken = UUID()
        var unmarked = entry("2")
        unmarked.appAccountToken = nil
        let refused = planner.plan(
            [foreign, unmarked],
            for: "u1",
            order: bound,
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(refused.deliveries.isEmpty)
        #expect(refused.orderResults.first?.outcome == .unmatched)
        #expect(refused.unclaimed.map(\.transactionID) == ["1", "2"])
        var own = entry("3")
        own.appAccountToken = token
        let paid = planner.plan([foreign, own], for: "u1", order: bound, otherOpenOrders: [], alreadyDelivered: [])
        #expect(paid.deliveries.map(\.transactionID) == ["3"])
        #expect(paid.orderResults.first?.outcome == .full)
        // An order without a token takes a purchase whatever its token.
        #expect(
            planner.plan([foreign], for: "u1", order: order(), otherOpenOrders: [], alreadyDelivered: []).deliveries
                .count == 1
        )
    }

    /// Issue 17, item 1: a transaction looked up by its id alone pays only an order with its app account token.
    @Test func aLookedUpTransactionNeedsTheOrdersToken() {
        let token = UUID()
        var bound = order()
        bound.appAccountToken = token
        var carrying = entry("1")
        carrying.appAccountToken = token
        carrying.requiresOrderToken = true
        var bare = entry("2")
        bare.requiresOrderToken = true
        let tokenless = planner.plan(
            [bare, carrying],
            for: "u1",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: []
        )
        #expect(tokenless.deliveries.isEmpty && tokenless.orderResults.first?.outcome == .unmatched)
        #expect(tokenless.unclaimed.map(\.transactionID) == ["1", "2"])
        #expect(tokenless.refusedWithoutToken.map(\.transactionID) == ["1", "2"])
        let paid = planner.plan([bare, carrying], for: "u1", order: bound, otherOpenOrders: [], alreadyDelivered: [])
        #expect(paid.deliveries.map(\.transactionID) == ["1"])
        #expect(paid.refusedWithoutToken.map(\.transactionID) == ["2"])
        // Another product is simply not this order's: unclaimed, not refused for its token.
        var coins = entry("3", product: "coins")
        coins.requiresOrderToken = true
        #expect(
            planner.plan([coins], for: "u1", order: order(), otherOpenOrders: [], alreadyDelivered: [])
                .refusedWithoutToken.isEmpty
        )
    }

    @Test func aFamilySharedCopyPaysItsPresenterAndIsNobodysPaymentOrFirstOwnership() {
        var shared = entry("11", original: "10")
        shared.details.ownership = "family_shared"
        var sharedShield = entry("12", product: "shield")
        sharedShield.details.ownership = "family_shared"
        let plan = planner.plan(
            [shared, sharedShield],
            for: "bob",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: [],
            firstOwners: ["10": "alice"]
        )
        // Alice bought it first; Bob's shared copy is his entitlement, not her purchase seen again.
        #expect(plan.deliveries.map(\.transactionID) == ["11"])
        #expect(plan.foreignPurchases.isEmpty && plan.newOwners.isEmpty)
        #expect(plan.unclaimed.isEmpty)
        // The same copy bought (not shared) would be Alice's purchase in Bob's input.
        let bought = planner.plan(
            [entry("11", original: "10")],
            for: "bob",
            order: order(),
            otherOpenOrders: [],
            alreadyDelivered: [],
            firstOwners: ["10": "alice"]
        )
        #expect(bought.deliveries.isEmpty && bought.foreignPurchases.map(\.ownerUserID) == ["alice"])
    }

}
