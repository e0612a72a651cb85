import Foundation
import Testing

@testable import ReceiptdCore

/// What each store notification type does, decided without I/O; and reading the stored payload.
@Suite struct NotificationPlannerTests {
    private let planner = NotificationPlanner()
    private let signed: Int64 = 1_780_000_000_000

    private func action(
        _ type: String,
        subtype: String? = nil,
        _ transaction: NotifiedTransaction? = NotifiedTransaction(transactionID: "1"),
        hasData: Bool = true,
        store: Store = .apple
    ) -> NotificationAction {
        planner.action(
            store: store,
            type: type,
            subtype: subtype,
            transaction: transaction,
            hasData: hasData,
            signedAtMilliseconds: signed
        )
    }

    @Test func aRefundRevokesWithItsReasonAndDate() {
        let other = NotifiedTransaction(transactionID: "7", revocationDateMilliseconds: 5, revocationReason: 0)
        #expect(
            action("REFUND", other)
                == .revoke(transactionID: "7", reason: "refund_other", percentage: nil, revokedAtMilliseconds: 5)
        )
        let issue = NotifiedTransaction(transactionID: "7", revocationDateMilliseconds: 5, revocationReason: 1)
        #expect(
            action("REFUND", issue)
                == .revoke(transactionID: "7", reason: "refund_app_issue", percentage: nil, revokedAtMilliseconds: 5)
        )
        // No reason and no date: refund_other, revoked when Apple signed the notification.
        #expect(
            action("REFUND", NotifiedTransaction(transactionID: "8"))
                == .revoke(transactionID: "8", reason: "refund_other", percentage: nil, revokedAtMilliseconds: signed)
        )
    }

    @Test func aProratedRefundRecordsItsPercentageAndAFullOneDoesNot() {
        let prorated = NotifiedTransaction(
            transactionID: "9",
            revocationDateMilliseconds: 5,
            revocationReason: 0,
            revocationType: "REFUND_PRORATED",
            revocationPercentage: 42_000
        )
        #expect(
            action("REFUND", prorated)
                == .revoke(transactionID: "9", reason: "refund_prorated", percentage: 42_000, revokedAtMilliseconds: 5)
        )
        // A prorated refund of it all, or without a share, is a refund of the whole purchase.
        for share in [100_000, 0, nil] as [Int?] {
            var whole = prorated
            whole.revocationPercentage = share
            #expect(
                action("REFUND", whole)
                    == .revoke(transactionID: "9", reason: "refund_other", percentage: nil, revokedAtMilliseconds: 5)
            )
        }
        var full = prorated
        full.revocationType = "REFUND_FULL"
        #expect(
            action("REFUND", full)
                == .revoke(transactionID: "9", reason: "refund_other", percentage: nil, revokedAtMilliseconds: 5)
        )
    }

    @Test func aRevokeIsFamilySharing() {
        let revoked = NotifiedTransaction(transactionID: "3", revocationDateMilliseconds: 6, revocationReason: 1)
        #expect(
            action("REVOKE", revoked)
                == .revoke(transactionID: "3", reason: "family_sharing", percentage: nil, revokedAtMilliseconds: 6)
        )
    }

    @Test func eachOtherTypeGetsItsAction() {
        let transaction = NotifiedTransaction(transactionID: "4", productID: "gems")
        #expect(action("REFUND_REVERSED", transaction) == .reinstate(transactionID: "4"))
        #expect(action("CONSUMPTION_REQUEST", transaction) == .requestConsumption(transaction))
        #expect(action("ONE_TIME_CHARGE", transaction) == .settleCharge(transaction))
        #expect(action("REFUND_DECLINED", transaction) == .record)
        #expect(action("TEST", nil) == .record)
        #expect(action("EXTERNAL_PURCHASE_TOKEN", nil) == .record)
        #expect(action("SOMETHING_NEW", transaction) == .record)
        // A subscription's news applies its transaction (the subscription's row, and a period the ledger lacks);
        // without a transaction there is nothing to apply.
        for type in NotificationPlanner.subscriptionTypes {
            #expect(action(type, subtype: "AUTO_RENEW_ENABLED", transaction) == .applySubscription(transaction))
            #expect(action(type, nil) == .ignore, "\(type)")
        }
        // A summary has no data at all: nothing to act on, whatever its type.
        #expect(action("RENEWAL_EXTENSION", subtype: "SUMMARY", nil, hasData: false) == .ignore)
        #expect(action("REFUND", nil, hasData: false) == .ignore)
        #expect(action("REFUND", transaction, store: .google) == .record)
    }

    @Test func aTypeThatNeedsATransactionFailsWithoutOne() {
        for type in ["REFUND", "REVOKE", "REFUND_REVERSED", "CONSUMPTION_REQUEST", "ONE_TIME_CHARGE"] {
            #expect(action(type, nil) == .fail("\(type) without a transaction"), "\(type)")
        }
        #expect(
            action("ONE_TIME_CHARGE", NotifiedTransaction(transactionID: "5"))
                == .fail("ONE_TIME_CHARGE: transaction has no productId")
        )
    }

    @Test func aRescindedConsentIsHandedOnWithItsAppTransactionAndNoDataIsNeeded() throws {
        let rescinded = planner.action(
            store: .apple,
            type: "RESCIND_CONSENT",
            subtype: nil,
            transaction: nil,
            hasData: false,
            appTransactionID: "app-1",
            signedAtMilliseconds: signed
        )
        #expect(rescinded == .rescindConsent(appTransactionID: "app-1"))
        #expect(
            action("RESCIND_CONSENT", nil, hasData: false)
                == .fail("RESCIND_CONSENT without appData.signedAppTransactionInfo")
        )
        let stored = try StoredNotificationPayload(
            payload:
                #"{"notification": {"appData": {"bundleId": "b"}}, "appTransaction": {"appTransactionId": "app-2"}}"#
        )
        #expect(stored.appTransactionID == "app-2" && !stored.hasData && stored.transaction == nil)
    }

    @Test func resultsCarryTheAgreedValues() {
        #expect(
            NotificationResult.allCases.map(\.rawValue) == [
                "revoked", "revoked_undelivered", "reinstated", "nothing_to_reinstate", "recorded", "ignored",
                "consumption_requested", "consumption_not_consented", "refund_review_requested", "charge_enqueued",
                "charge_unclaimed", "charge_already_delivered", "job_woken", "partly_revoked", "superseded",
                "consent_rescinded", "subscription_updated", "period_enqueued", "failed",
            ]
        )
    }

    @Test func theStoredPayloadIsRead() throws {
        let token = UUID()
        let payload = try StoredNotificationPayload(
            payload: """
                {"notification": {"notificationType": "REFUND", "data": {"signedTransactionInfo": "a.b.c"}},
                 "transaction": {"transactionId": "2000", "originalTransactionId": "1999", "productId": "gems",
                                 "quantity": 3, "purchaseDate": 1700000000000, "appAccountToken": "\(token.uuidString.lowercased())",
                                 "revocationDate": 1700000001000, "revocationReason": 1, "revocationType": "REFUND_PRORATED",
                                 "revocationPercentage": 25000, "environment": "Sandbox"}}
                """
        )
        #expect(payload.hasData && payload.signedTransactionInfo == "a.b.c")
        #expect(
            payload.transaction
                == NotifiedTransaction(
                    transactionID: "2000",
                    originalTransactionID: "1999",
                    productID: "gems",
                    quantity: 3,
                    purchaseDateMilliseconds: 1_700_000_000_000,
                    appAccountToken: token,
                    revocationDateMilliseconds: 1_700_000_001_000,
                    revocationReason: 1,
                    revocationType: "REFUND_PRORATED",
                    revocationPercentage: 25_000,
                    environment: "Sandbox"
                )
        )
        let summary = try StoredNotificationPayload(payload: #"{"notification": {"summary": {}}}"#)
        #expect(!summary.hasData && summary.transaction == nil)
    }

    @Test func anUnreadablePayloadSaysWhy() {
        #expect(throws: NotificationPayloadError(reason: "payload is not a JSON object")) {
            try StoredNotificationPayload(payload: "[1]")
        }
        #expect(throws: NotificationPayloadError(reason: "payload has no notification object")) {
            try StoredNotificationPayload(payload: "{}")
        }
        #expect(throws: NotificationPayloadError(reason: "payload.transaction has no transactionId")) {
            try StoredNotificationPayload(payload: #"{"notification": {"data": {}}, "transaction": {}}"#)
        }
        #expect(throws: NotificationPayloadError(reason: "payload.transaction.appAccountToken is not a UUID")) {
            try StoredNotificationPayload(
                payload:
                    #"{"notification": {"data": {}}, "transaction": {"transactionId": "1", "appAccountToken": "x"}}"#
            )
        }
    }
}
