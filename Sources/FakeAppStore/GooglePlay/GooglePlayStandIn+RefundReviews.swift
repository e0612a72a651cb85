import Foundation
import ReceiptdCore

/// Google's chargeback reviews: the stand-in pushes a `pendingRefundReviewNotification` and takes
/// `orders.reviewrefund`, keeping the first answer per token and ignoring later ones, as Google does.
extension GooglePlayStandIn {
    /// Pushes a chargeback review of `orderID` (token `refundToken`, default a fresh one) to `url`, as Pub/Sub would;
    /// returns the status `url` answered and the token.
    package func pushRefundReview(
        orderID: String,
        refundToken: String = "prt-" + UUID().uuidString,
        reason: Int? = nil,
        accountID: String? = nil,
        eventTime: Date = Date(),
        to url: String,
        audience: String? = nil
    ) async throws -> (status: Int, token: String) {
        let notification = GoogleDeveloperNotification.pendingRefundReview(
            token: refundToken,
            orderID: orderID,
            reason: reason,
            accountID: accountID,
            packageName: packageName,
            eventTime: eventTime
        )
        return (try await push(notification, to: url, audience: audience), refundToken)
    }

    /// Answers the next `count` `orders.reviewrefund` calls (past the bearer and package checks) with `status` and
    /// Google's error body for it, without effect; 0 ends a run of failures early.
    package func failRefundReviews(_ count: Int, status: Int = 500) {
        ledger.failRefundReviews(count, status: status)
    }

    /// Holds each `orders.reviewrefund` answer `milliseconds` after the call is recorded (a crash between a call
    /// and its record); 0 ends it.
    package func holdRefundReviews(milliseconds: Int) {
        ledger.holdRefundReviews(milliseconds: milliseconds)
    }

    /// Every `orders.reviewrefund` call received so far, refused ones too, in arrival order.
    package func recordedRefundReviews() -> [RecordedGoogleRefundReview] {
        ledger.refundReviews
    }

    /// `orders.reviewrefund`: bearer, package, a body with a token and a preference, then a pending failure. Every
    /// call is recorded; Google keeps the first answer taken for each token.
    func reviewRefund(package: String, orderID: String, authorization: String?, body: String) -> GooglePlayAnswer {
        let fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        let token = fields?["pendingRefundToken"] as? String
        let preference = fields?["refundPreference"] as? String
        let consumed = fields?["consumptionPercentageMilliunits"] as? Int
        let refusal: GooglePlayAnswer? =
            if ledger.bearerFailure(authorization) != nil {
                .unauthenticated
            } else if package != configuration.packageName {
                .permissionDenied
            } else if token == nil || !["APPROVE", "DECLINE", "NEUTRAL"].contains(preference ?? "")
                || !(0...100_000).contains(consumed ?? 0)
            {
                .error(400, "Invalid value for refundPreference or pendingRefundToken.", "INVALID_ARGUMENT")
            } else {
                nil
            }
        return ledger.reviewRefund(
            RecordedGoogleRefundReview(
                orderID: orderID,
                pendingRefundToken: token,
                refundPreference: preference,
                consumptionPercentageMilliunits: consumed,
                sampleContentProvided: fields?["sampleContentProvided"] as? Bool,
                httpStatus: 0,
                kept: false,
                receivedAt: Date()
            ),
            refusal: refusal
        )
    }
}
