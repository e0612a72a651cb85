import Foundation
import Testing

@testable import ReceiptdCore

/// Whose purchase it is (issue #47, items 3 and 7), without I/O: a period Apple calls a renewal pays its own renewal
/// order alone, whoever presents it; a purchase never delivered whose app account token is an order's belongs to that
/// order's player.
extension DeliveryPlannerTests {
    private func renewal(_ id: String, of original: String, at offset: Int64) -> VerifiedPurchase {
        var renewal = period(id, of: original, at: offset)
        renewal.isRenewal = true
        return renewal
    }

    @Test func aRenewalPresentedForACheckoutPaysItsOwnRenewalOrderAndLeavesTheCheckoutUnmatched() {
        // The subscription is u2's (moved there, or bought there); its renewal comes with u2's fresh checkout.
        let plan = planner.plan(
            [renewal("11", of: "10", at: 2000)],
            for: "u2",
            order: order("b-buy2", product: "vip"),
            otherOpenOrders: [],
            alreadyDelivered: ["10"],
            firstOwners: ["10": "u2"]
        )
        #expect(plan.deliveries.map(\.orderID) == ["renewal:11"])
        #expect(plan.renewalOrders.map(\.orderID) == ["renewal:11"])
        #expect(plan.orderResults.first { $0.orderID == "b-buy2" }?.outcome == .unmatched)
        #expect(plan.foreignPurchases.isEmpty && plan.unclaimed.isEmpty)
    }

    @Test func aResubscriptionBoughtAsAPurchaseStillPaysItsCheckout() {
        let plan = planner.plan(
            [period("11", of: "10", at: 2000)],
            for: "u1",
            order: order("buy2", product: "vip"),
            otherOpenOrders: [],
            alreadyDelivered: ["10"],
            firstOwners: ["10": "u1"]
        )
        #expect(plan.deliveries.map(\.orderID) == ["buy2"])
    }

    private func tokened(
        _ id: String,
        token: UUID,
        product: String = "gems",
        subscription: Bool = false
    )
        -> VerifiedPurchase
    {
        var purchase = subscription ? period(id, of: id, at: 1000) : entry(id, product: product)
        purchase.appAccountToken = token
        return purchase
    }

    @Test func anotherPlayersTokenMakesANeverDeliveredPurchaseForeign() {
        let token = UUID()
        for subscription in [false, true] {
            let plan = planner.plan(
                [tokened("20", token: token, product: subscription ? "vip" : "gems", subscription: subscription)],
                for: "thief",
                order: order("t1", product: subscription ? "vip" : "gems"),
                otherOpenOrders: [],
                alreadyDelivered: [],
                tokenOwners: [token: ["owner"]]
            )
            #expect(plan.deliveries.isEmpty && plan.unclaimed.isEmpty, "\(subscription)")
            #expect(plan.orderResults.map(\.outcome) == [.unmatched])
            #expect(plan.foreignPurchases == [.init(originalTransactionID: "20", ownerUserID: "owner", byToken: true)])
            #expect(plan.newOwners.isEmpty && plan.transfers.isEmpty)
        }
    }

    @Test func itsOwnersInputPaysOnlyAnOrderCarryingTheToken() {
        let token = UUID()
        var tokenedOrder = order("a-buy", created: created - 10)
        tokenedOrder.appAccountToken = token
        // Presented for an order without the token, it pays the order that carries it.
        let plan = planner.plan(
            [tokened("20", token: token)],
            for: "owner",
            order: order("a-other"),
            otherOpenOrders: [tokenedOrder],
            alreadyDelivered: [],
            tokenOwners: [token: ["owner"]]
        )
        #expect(plan.deliveries.map(\.orderID) == ["a-buy"] && plan.foreignPurchases.isEmpty)
        // That order paid or closed already: the player's unclaimed payment, not another order's.
        let later = planner.plan(
            [tokened("20", token: token)],
            for: "owner",
            order: order("a-other"),
            otherOpenOrders: [],
            alreadyDelivered: [],
            tokenOwners: [token: ["owner"]]
        )
        #expect(later.deliveries.isEmpty && later.unclaimed.map(\.transactionID) == ["20"])
    }

    @Test func onceDeliveredTheTokenNoLongerDecidesAndAnotherAccountsSubscriptionIsARestore() {
        let token = UUID()
        let plan = planner.plan(
            [tokened("20", token: token, product: "vip", subscription: true)],
            for: "thief",
            order: order("t1", product: "vip"),
            otherOpenOrders: [],
            alreadyDelivered: ["20"],
            firstOwners: ["20": "owner"],
            tokenOwners: [token: ["owner"]]
        )
        #expect(plan.foreignPurchases.isEmpty && plan.deliveries.isEmpty)
    }
}
