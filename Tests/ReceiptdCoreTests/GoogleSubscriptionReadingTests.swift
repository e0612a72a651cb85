import Foundation
import Testing

@testable import ReceiptdCore

/// How a subscriptionsv2 answer maps onto the model, without I/O.
@Suite struct GoogleSubscriptionReadingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let start: Int64 = 1_799_990_000_000

    private func purchase(
        _ state: GoogleSubscriptionPurchase.State,
        latest: String? = "GPA.1-2-3-4..1",
        expires: Int64 = 1_800_000_500_000,
        autoRenew: Bool? = true,
        test: Bool = false
    ) -> GoogleSubscriptionPurchase {
        GoogleSubscriptionPurchase(
            state: state,
            startMilliseconds: start,
            isTestPurchase: test,
            accountID: "acct",
            lineItems: [
                .init(
                    productID: "vip",
                    expiryMilliseconds: expires,
                    autoRenewEnabled: autoRenew,
                    isPrepaid: autoRenew == nil,
                    basePlanID: "monthly",
                    latestSuccessfulOrderID: latest
                )
            ]
        )
    }

    @Test func renewalOrderIDsNameTheirPlaceInTheChain() {
        #expect(GoogleSubscriptionReading.chain(of: "GPA.1-2-3-4") == ("GPA.1-2-3-4", 0))
        #expect(GoogleSubscriptionReading.chain(of: "GPA.1-2-3-4..0") == ("GPA.1-2-3-4", 1))
        #expect(GoogleSubscriptionReading.chain(of: "GPA.1-2-3-4..12") == ("GPA.1-2-3-4", 13))
        #expect(GoogleSubscriptionReading.chain(of: "GPA.1-2-3-4..x") == ("GPA.1-2-3-4..x", 0))
        #expect(GoogleSubscriptionReading.orderID(base: "GPA.1", period: 0) == "GPA.1")
        #expect(GoogleSubscriptionReading.orderID(base: "GPA.1", period: 3) == "GPA.1..2")
    }

    @Test func everyPeriodUpToTheLatestIsAPurchaseOfItsOwn() {
        let periods = GoogleSubscriptionReading.periods(of: purchase(.active), token: "t", now: now)
        #expect(periods.map(\.transactionID) == ["GPA.1-2-3-4", "GPA.1-2-3-4..0", "GPA.1-2-3-4..1"])
        #expect(Set(periods.map(\.originalTransactionID)) == ["GPA.1-2-3-4"])
        // Spread evenly from the start to the current period's end, the last ending at the expiry.
        #expect(periods.map(\.purchaseDateMilliseconds) == [start, start + 3_500_000, start + 7_000_000])
        #expect(periods.last?.subscription?.expiresAt == Date(timeIntervalSince1970: 1_800_000_500))
        #expect(
            periods.allSatisfy {
                $0.store == .google && $0.accountID == "acct" && $0.details.storeKind == .autoRenewable
            }
        )
        #expect(periods.first?.subscription?.subscriptionID == "google:GPA.1-2-3-4")
        // A license tester's subscription without orders is one period, named by its token.
        let test = GoogleSubscriptionReading.periods(
            of: purchase(.active, latest: nil, test: true),
            token: "t",
            now: now
        )
        #expect(test.count == 1 && test[0].transactionID == GoogleLedgerID.of(orderID: nil, token: "t"))
        #expect(test[0].subscription?.environment == "Sandbox")
        #expect(GoogleSubscriptionReading.periods(of: purchase(.pending, latest: nil), token: "t", now: now).isEmpty)
    }

    @Test func googlesStatesMapOntoTheModel() {
        func snapshot(_ p: GoogleSubscriptionPurchase) -> SubscriptionSnapshot? {
            GoogleSubscriptionReading.snapshot(of: p, token: "tok", now: now)
        }
        let active = snapshot(purchase(.active))
        #expect(active?.state == .active && active?.autoRenew == true && active?.entitledUntil != nil)
        #expect(active?.purchaseToken == "tok" && active?.latestTransactionID == "GPA.1-2-3-4..1")
        #expect(snapshot(purchase(.inGracePeriod))?.state == .gracePeriod)
        #expect(snapshot(purchase(.onHold))?.state == .onHold && snapshot(purchase(.onHold))?.entitledUntil == nil)
        #expect(snapshot(purchase(.paused))?.state == .paused)
        // Cancelled: still active without renewal until the period ends, expired after.
        let cancelled = snapshot(purchase(.canceled, autoRenew: false))
        #expect(cancelled?.state == .active && cancelled?.autoRenew == false)
        #expect(snapshot(purchase(.canceled, expires: 1_799_999_000_000))?.state == .expired)
        #expect(snapshot(purchase(.expired))?.state == .expired && snapshot(purchase(.expired))?.autoRenew == false)
        // A prepaid plan never renews by itself.
        #expect(snapshot(purchase(.active, autoRenew: nil))?.autoRenew == false)
    }

    @Test func theClassifierWaitsForAPendingOneAndPaysNothingForACancelledOne() {
        let configuration = GooglePlayConfiguration()
        let lookup = GooglePlayClassifier.Lookup(token: "t", productID: "vip", waited: .seconds(5))
        let pending = GooglePlayClassifier.classifySubscription(
            status: 200,
            purchase: purchase(.pending, latest: nil),
            lookup: lookup,
            configuration: configuration,
            now: now
        )
        guard case .postpone = pending.verdict else {
            Issue.record("a pending subscription waits: \(pending.verdict)")
            return
        }
        let cancelled = GooglePlayClassifier.classifySubscription(
            status: 200,
            purchase: purchase(.pendingPurchaseCanceled, latest: nil),
            lookup: lookup,
            configuration: configuration,
            now: now
        )
        guard case .verified(let verified) = cancelled.verdict else {
            Issue.record("a cancelled pending subscription is verified: \(cancelled.verdict)")
            return
        }
        #expect(verified.purchases.allSatisfy(\.isCancelled) && verified.finalization == nil)
        let active = GooglePlayClassifier.classifySubscription(
            status: 200,
            purchase: purchase(.active),
            lookup: lookup,
            configuration: configuration,
            now: now
        )
        guard case .verified(let paid) = active.verdict else {
            Issue.record("an active subscription is verified: \(active.verdict)")
            return
        }
        // Only the first period is owed Google's acknowledgement.
        #expect(paid.finalization?.action == .acknowledgeSubscription)
        #expect(paid.finalization?.transactionID == "GPA.1-2-3-4")
        #expect(paid.finalization?.owed(for: .consumable)?.action == .acknowledgeSubscription)
        let refused = GooglePlayClassifier.classifySubscription(
            status: 404,
            purchase: nil,
            lookup: lookup,
            configuration: configuration
        )
        guard case .reject = refused.verdict else {
            Issue.record("an unknown token is invalid: \(refused.verdict)")
            return
        }
    }
}
