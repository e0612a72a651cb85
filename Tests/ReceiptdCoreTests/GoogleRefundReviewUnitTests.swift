import Foundation
import Testing

@testable import ReceiptdCore

/// Google's chargeback reviews without I/O: the notification read and planned, the `orders.reviewrefund` body for
/// each answer, and what Google's status means.
@Suite struct GoogleRefundReviewUnitTests {
    private static let review = #"""
        {"version": "1.0", "packageName": "com.example", "eventTimeMillis": "1780000000000",
         "pendingRefundReviewNotification": {"version": "1.0", "pendingRefundToken": "prt-1", "orderId": "GPA.5",
                                             "refundReason": 7, "obfuscatedAccountId": "acct-5"}}
        """#

    @Test func theNotificationIsARefundRequestDueFromItsEvent() throws {
        let notification = try JSONDecoder().decode(GoogleDeveloperNotification.self, from: Data(Self.review.utf8))
        #expect(notification.typeName == "PENDING_REFUND_REVIEW" && !notification.needsLookup)
        let payload = try GoogleNotificationPayload(
            payload: #"{"message": {"messageId": "1"}, "notification": "# + Self.review + "}"
        )
        let planner = NotificationPlanner()
        #expect(
            planner.googleAction(type: "PENDING_REFUND_REVIEW", payload: payload, signedAtMilliseconds: 1)
                == .requestRefundReview(
                    GoogleRefundReviewRequest(
                        token: "prt-1",
                        orderID: "GPA.5",
                        reason: "7",
                        accountID: "acct-5",
                        eventTimeMilliseconds: 1_780_000_000_000
                    )
                )
        )
        // Without its body the type is refused, not guessed at.
        let bare = try GoogleNotificationPayload(
            payload: #"{"message": {"messageId": "2"}, "notification": {"packageName": "com.example"}}"#
        )
        guard case .fail = planner.googleAction(type: "PENDING_REFUND_REVIEW", payload: bare, signedAtMilliseconds: 1)
        else {
            Issue.record("a PENDING_REFUND_REVIEW without pendingRefundReviewNotification must fail")
            return
        }
    }

    private func body(
        granted: Bool,
        preference: RefundPreference,
        consumed: Int?,
        sample: Bool = false
    ) -> [String: Any] {
        let owed = OwedRefundAnswer(
            notificationID: 1,
            store: .google,
            requestID: "prt-1",
            transactionID: "GPA.5",
            environment: .production,
            attempts: 1,
            deliveredAndGranted: granted,
            preference: preference,
            consumed: consumed
        )
        let json = GoogleRefundReview(owed, sampleContentProvided: sample).json
        return (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func eachAnswerIsSentAsGoogleTakesIt() {
        let declined = body(granted: true, preference: .decline, consumed: 80_000, sample: true)
        #expect(
            declined["refundPreference"] as? String == "DECLINE" && declined["pendingRefundToken"] as? String == "prt-1"
        )
        #expect(declined["consumptionPercentageMilliunits"] as? Int == 80_000)
        #expect(declined["sampleContentProvided"] as? Bool == true)
        let prorated = body(granted: true, preference: .grantProrated, consumed: 30_000)
        #expect(prorated["refundPreference"] as? String == "APPROVE")
        #expect(prorated["consumptionPercentageMilliunits"] as? Int == 30_000)
        #expect(body(granted: true, preference: .grantFull, consumed: nil)["refundPreference"] as? String == "APPROVE")
        // Nothing known is left out; goods never granted were not consumed.
        let neutral = body(granted: true, preference: .none, consumed: nil)
        #expect(
            neutral["refundPreference"] as? String == "NEUTRAL" && neutral["consumptionPercentageMilliunits"] == nil
        )
        #expect(
            body(granted: false, preference: .grantFull, consumed: nil)["consumptionPercentageMilliunits"] as? Int == 0
        )
    }

    @Test func googlesStatusSaysWhetherToRetry() {
        #expect(GoogleRefundReview.outcome(status: 200, message: nil) == .sent)
        #expect(GoogleRefundReview.outcome(status: 204, message: nil) == .sent)
        for status in [401, 403, 408, 429, 500, 503] {
            guard case .retry = GoogleRefundReview.outcome(status: status, message: nil) else {
                Issue.record("\(status) should be retried")
                continue
            }
        }
        for status in [400, 404, 409, 410] {
            guard case .refused(let reason) = GoogleRefundReview.outcome(status: status, message: "Order not found.")
            else {
                Issue.record("\(status) should be refused for good")
                continue
            }
            #expect(reason.contains("HTTP \(status)") && reason.contains("Order not found."))
        }
    }
}
