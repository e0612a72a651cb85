import Foundation
import Testing

@testable import ReceiptdCore

/// What each Google notification type does, decided without I/O from the stored payload (the RTDN data and the
/// lookup's answer).
@Suite struct GoogleNotificationPlannerTests {
    private let planner = NotificationPlanner()
    private let published: Int64 = 1_780_000_000_000

    /// The agreed payload: the message, the RTDN data, and the lookup's answer if any.
    private func payload(
        _ notification: String,
        purchase: String? = nil,
        voided: String? = nil
    ) throws
        -> GoogleNotificationPayload
    {
        var text = #"{"message": {"messageId": "1"}, "notification": "# + notification
        if let purchase { text += #", "purchase": "# + purchase }
        if let voided { text += #", "voided": "# + voided }
        return try GoogleNotificationPayload(payload: text + "}")
    }

    private func action(_ type: String, _ payload: GoogleNotificationPayload) -> NotificationAction {
        planner.googleAction(type: type, payload: payload, signedAtMilliseconds: published)
    }

    private static let purchased = #"""
        {"packageName": "com.example", "eventTimeMillis": "1780000000000",
         "oneTimeProductNotification": {"version": "1.0", "notificationType": 1, "purchaseToken": "tok", "sku": "gems"}}
        """#

    @Test func aLookedUpPurchaseIsSettledWithItsAccountQuantityAndLedgerID() throws {
        let answer = #"""
            {"purchaseState": 0, "orderId": "GPA.1", "quantity": 3, "purchaseTimeMillis": "1779999999000",
             "obfuscatedExternalAccountId": "acct-7"}
            """#
        #expect(
            action("ONE_TIME_PRODUCT_PURCHASED", try payload(Self.purchased, purchase: answer))
                == .settleGooglePurchase(
                    GoogleNotifiedPurchase(
                        token: "tok",
                        productID: "gems",
                        ledgerID: "GPA.1",
                        state: .purchased,
                        accountID: "acct-7",
                        quantity: 3,
                        purchaseTimeMilliseconds: 1_779_999_999_000
                    )
                )
        )
        // A pending one (no orderId yet) is settled as pending, under the token's hash as its ledger id.
        guard
            case .settleGooglePurchase(let pending) = action(
                "ONE_TIME_PRODUCT_PURCHASED",
                try payload(Self.purchased, purchase: #"{"purchaseState": 2}"#)
            )
        else {
            Issue.record("a pending purchase is not settled")
            return
        }
        #expect(pending.state == .pending && pending.accountID == nil && pending.quantity == 1)
        #expect(pending.ledgerID == GoogleLedgerID.of(orderID: nil, token: "tok"))
    }

    @Test func aCancelledPurchaseDeliversNothingAndOneWithoutItsLookupFails() throws {
        #expect(
            action("ONE_TIME_PRODUCT_PURCHASED", try payload(Self.purchased, purchase: #"{"purchaseState": 1}"#))
                == .record
        )
        #expect(
            action("ONE_TIME_PRODUCT_PURCHASED", try payload(Self.purchased))
                == .fail("ONE_TIME_PRODUCT_PURCHASED without the purchase lookup's answer")
        )
        #expect(
            action("ONE_TIME_PRODUCT_PURCHASED", try payload(Self.purchased, purchase: #"{"purchaseState": 7}"#))
                == .fail("ONE_TIME_PRODUCT_PURCHASED: purchaseState 7 is not one receiptd knows")
        )
        #expect(throws: NotificationPayloadError.self) {
            try payload(Self.purchased, purchase: #"{"orderId": "GPA.1"}"#)
        }
    }

    @Test func aCancelledPendingPurchaseWakesWhatWaitsOnItsToken() throws {
        let cancelled = #"""
            {"packageName": "com.example",
             "oneTimeProductNotification": {"notificationType": 2, "purchaseToken": "tok", "sku": "gems"}}
            """#
        #expect(action("ONE_TIME_PRODUCT_CANCELED", try payload(cancelled)) == .wakeGooglePurchase(token: "tok"))
    }

    @Test func aFullRefundRevokesTheLedgerRowAtTheEventTime() throws {
        let full = #"""
            {"packageName": "com.example", "eventTimeMillis": "1780000000500",
             "voidedPurchaseNotification": {"purchaseToken": "tok", "orderId": "GPA.9", "productType": 2, "refundType": 1}}
            """#
        #expect(
            action("VOIDED_PURCHASE", try payload(full))
                == .revoke(
                    transactionID: "GPA.9",
                    reason: "voided",
                    percentage: nil,
                    revokedAtMilliseconds: 1_780_000_000_500
                )
        )
        // No refundType, no orderId, no event time: a full refund of the token's ledger id, dated when published.
        let bare = #"{"packageName": "com.example", "voidedPurchaseNotification": {"purchaseToken": "tok"}}"#
        #expect(
            action("VOIDED_PURCHASE", try payload(bare))
                == .revoke(
                    transactionID: GoogleLedgerID.of(orderID: nil, token: "tok"),
                    reason: "voided",
                    percentage: nil,
                    revokedAtMilliseconds: published
                )
        )
        // A subscription's voided period is revoked the same way, and its subscription read again.
        let subscription = #"""
            {"packageName": "com.example",
             "voidedPurchaseNotification": {"purchaseToken": "tok", "orderId": "GPA.7..0", "productType": 1}}
            """#
        #expect(
            action("VOIDED_PURCHASE", try payload(subscription))
                == .revokeSubscriptionPeriod(transactionID: "GPA.7..0", token: "tok", revokedAtMilliseconds: published)
        )
    }

    @Test func aPartialRefundRevokesTheUnitsTheVoidedListGivesForThisPurchaseOnly() throws {
        let partial = #"""
            {"packageName": "com.example",
             "voidedPurchaseNotification": {"purchaseToken": "tok", "orderId": "GPA.9", "productType": 2, "refundType": 2}}
            """#
        let entries = #"""
            [{"purchaseToken": "tok", "orderId": "GPA.9", "voidedTimeMillis": "1780000000100", "voidedQuantity": 2},
             {"purchaseToken": "tok", "orderId": "GPA.9", "voidedTimeMillis": "1780000000200", "voidedQuantity": 1},
             {"purchaseToken": "other", "orderId": "GPA.8", "voidedTimeMillis": "1780000000300", "voidedQuantity": 5},
             {"purchaseToken": "tok", "orderId": "GPA.9", "voidedTimeMillis": "1780000000400"}]
            """#
        #expect(
            action("VOIDED_PURCHASE", try payload(partial, voided: entries))
                == .revokeUnits(
                    transactionID: "GPA.9",
                    refunds: [
                        GooglePartialRefund(voidedAtMilliseconds: 1_780_000_000_100, quantity: 2, purchaseToken: "tok"),
                        GooglePartialRefund(voidedAtMilliseconds: 1_780_000_000_200, quantity: 1, purchaseToken: "tok"),
                    ]
                )
        )
        #expect(
            action("VOIDED_PURCHASE", try payload(partial, voided: "[]"))
                == .fail("VOIDED_PURCHASE: Google's voided purchases list has no partial refund of this purchase")
        )
        #expect(
            action("VOIDED_PURCHASE", try payload(partial))
                == .fail("VOIDED_PURCHASE without the voided purchases lookup")
        )
    }

    @Test func aTestIsRecordedUnknownKindsAreIgnoredAndSubscriptionNewsIsReadAgain() throws {
        #expect(
            action("TEST", try payload(#"{"packageName": "p", "testNotification": {"version": "1.0"}}"#)) == .record
        )
        // Every subscription type, known or not, has its subscription read again; a renewal (2) also waits for a
        // subscription no row has yet (issue 47).
        #expect(
            action(
                "SUBSCRIPTION_RENEWED",
                try payload(
                    #"{"packageName": "p", "subscriptionNotification": {"notificationType": 2, "purchaseToken": "tok"}}"#
                )
            ) == .googleSubscriptionRenewed(token: "tok", period: nil, originalID: nil)
        )
        for type in [3, 13, 99] {
            let news =
                #"{"packageName": "p", "subscriptionNotification": {"notificationType": \#(type), "purchaseToken": "tok"}}"#
            #expect(
                action("SUBSCRIPTION_\(type)", try payload(news))
                    == .googleSubscriptionNews(token: "tok", purchase: nil)
            )
        }
        let tokenless = #"{"packageName": "p", "subscriptionNotification": {"notificationType": 2}}"#
        #expect(
            action("SUBSCRIPTION_RENEWED", try payload(tokenless))
                == .fail("SUBSCRIPTION_RENEWED without subscriptionNotification.purchaseToken")
        )
        #expect(action("UNKNOWN", try payload(#"{"packageName": "p"}"#)) == .ignore)
        #expect(throws: NotificationPayloadError.self) { try GoogleNotificationPayload(payload: #"{"message": {}}"#) }
    }
}
