import Foundation

/// An `orders.reviewrefund` call the stand-in Google Play received, whatever it answered.
package struct RecordedGoogleRefundReview: Sendable, Equatable {
    /// The order id in the path.
    package var orderID: String
    /// `pendingRefundToken` of the body, if it had one.
    package var pendingRefundToken: String?
    /// `refundPreference`: `APPROVE`, `DECLINE` or `NEUTRAL`.
    package var refundPreference: String?
    /// `consumptionPercentageMilliunits`, if given.
    package var consumptionPercentageMilliunits: Int?
    /// `sampleContentProvided`, if given.
    package var sampleContentProvided: Bool?
    /// The HTTP status answered (200 when taken).
    package var httpStatus: Int
    /// Whether Google kept this answer: the first one taken for its token (later ones are answered 200 and ignored).
    package var kept: Bool
    /// When it arrived.
    package var receivedAt: Date
}
