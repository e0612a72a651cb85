import Foundation
import Testing

@testable import ReceiptdCore

/// How the App Store's word on a subscription maps onto the store-neutral states, without I/O.
@Suite struct AppleSubscriptionReadingTests {
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func milliseconds(_ offset: Double) -> Int64 { Int64((now.timeIntervalSince1970 + offset) * 1000) }

    private func transaction(
        _ id: String = "20",
        expiresIn: Double? = 600,
        upgraded: Bool = false,
        revoked: Bool = false,
        ownership: String = "PURCHASED"
    ) throws -> SignedTransaction {
        var fields: [String: Any] = [
            "transactionId": id, "originalTransactionId": "10", "bundleId": "com.example", "productId": "vip.month",
            "environment": "Sandbox", "signedDate": milliseconds(-5), "purchaseDate": milliseconds(-60),
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": ownership,
            "subscriptionGroupIdentifier": "21000001", "webOrderLineItemId": "3000", "transactionReason": "RENEWAL",
            "isUpgraded": upgraded,
        ]
        if let expiresIn { fields["expiresDate"] = milliseconds(expiresIn) }
        if revoked { fields["revocationDate"] = milliseconds(-1) }
        return try SignedTransaction(json: JSONSerialization.data(withJSONObject: fields))
    }

    private func renewal(
        autoRenew: Int = 1,
        next: String = "vip.month",
        retry: Bool = false,
        graceIn: Double? = nil
    ) throws -> AppleRenewalInfo {
        var fields: [String: Any] = [
            "originalTransactionId": "10", "productId": "vip.month", "autoRenewProductId": next,
            "autoRenewStatus": autoRenew, "isInBillingRetryPeriod": retry, "signedDate": milliseconds(-1),
        ]
        if let graceIn { fields["gracePeriodExpiresDate"] = milliseconds(graceIn) }
        return try AppleRenewalInfo(json: JSONSerialization.data(withJSONObject: fields))
    }

    @Test func aStatusIsTakenAsAppleGivesIt() throws {
        let active = try #require(
            AppleSubscriptionReading.snapshot(of: try transaction(), status: .active, renewal: try renewal(), now: now)
        )
        #expect(active.subscriptionID == "apple:10" && active.state == .active && active.autoRenew)
        #expect(active.entitledUntil == active.expiresAt && active.groupID == "21000001")
        #expect(
            active.latestTransactionID == "20" && active.environment == "Sandbox" && active.ownership == "purchased"
        )
        // The renewal info is the newer news here.
        #expect(active.storeTime == Date(timeIntervalSince1970: Double(milliseconds(-1)) / 1000))

        let grace = try #require(
            AppleSubscriptionReading.snapshot(
                of: try transaction(expiresIn: -60),
                status: .gracePeriod,
                renewal: try renewal(retry: true, graceIn: 3600),
                now: now
            )
        )
        #expect(
            grace.state == .gracePeriod
                && grace.entitledUntil == Date(timeIntervalSince1970: now.timeIntervalSince1970 + 3600)
        )
        for (status, state) in [
            (AppleSubscriptionReading.Status.billingRetry, SubscriptionState.billingRetry), (.expired, .expired),
            (.revoked, .revoked),
        ] {
            let snapshot = try #require(
                AppleSubscriptionReading.snapshot(of: try transaction(expiresIn: -60), status: status, now: now)
            )
            #expect(snapshot.state == state && snapshot.entitledUntil == nil, "\(status)")
        }
    }

    @Test func withoutAStatusTheSignedWordIsReadAtNow() throws {
        func state(_ transaction: SignedTransaction, _ renewal: AppleRenewalInfo? = nil) -> SubscriptionSnapshot? {
            AppleSubscriptionReading.snapshot(of: transaction, renewal: renewal, now: now)
        }
        #expect(try state(transaction())?.state == .active)
        #expect(try state(transaction(expiresIn: -60))?.state == .expired)
        #expect(try state(transaction(expiresIn: -60))?.autoRenew == false)
        #expect(try state(transaction(expiresIn: -60), renewal(retry: true))?.state == .billingRetry)
        let grace = try state(transaction(expiresIn: -60), renewal(retry: true, graceIn: 120))
        #expect(grace?.state == .gracePeriod && grace?.entitledUntil != nil)
        #expect(try state(transaction(revoked: true))?.state == .revoked)
        #expect(try state(transaction(revoked: true))?.entitledUntil == nil)
    }

    @Test func renewalPreferencesOwnershipAndWhatSaysNothing() throws {
        let off = try #require(
            AppleSubscriptionReading.snapshot(of: try transaction(), renewal: try renewal(autoRenew: 0), now: now)
        )
        #expect(!off.autoRenew && off.state == .active && off.renewsTo == nil)
        let downgrade = try #require(
            AppleSubscriptionReading.snapshot(of: try transaction(), renewal: try renewal(next: "vip.lite"), now: now)
        )
        #expect(downgrade.renewsTo == "vip.lite" && downgrade.productID == "vip.month")
        #expect(
            AppleSubscriptionReading.snapshot(of: try transaction(ownership: "FAMILY_SHARED"), now: now)?.ownership
                == "family_shared"
        )
        // A transaction an upgrade replaced, and a product that is no subscription, say nothing.
        #expect(AppleSubscriptionReading.snapshot(of: try transaction(upgraded: true), now: now) == nil)
        #expect(AppleSubscriptionReading.snapshot(of: try transaction(expiresIn: nil), now: now) == nil)
    }

    @Test func theStatusesAnswerAndARenewalInfoWithoutItsIdAreRead() throws {
        let answer = #"""
            {"environment": "Sandbox", "bundleId": "com.example", "data": [{"subscriptionGroupIdentifier": "21000001",
             "lastTransactions": [{"status": 4, "originalTransactionId": "10", "signedTransactionInfo": "a.b.c",
                                   "signedRenewalInfo": "d.e.f"}]}]}
            """#
        let statuses = try JSONDecoder().decode(AppleSubscriptionStatuses.self, from: Data(answer.utf8))
        let last = try #require(statuses.data.first?.lastTransactions.first)
        #expect(AppleSubscriptionReading.Status(rawValue: last.status) == .gracePeriod)
        #expect(last.originalTransactionId == "10" && last.signedRenewalInfo == "d.e.f")
        #expect(throws: SignedTransaction.FormatError.self) {
            try AppleRenewalInfo(json: Data(#"{"signedDate": 1}"#.utf8))
        }
    }
}
