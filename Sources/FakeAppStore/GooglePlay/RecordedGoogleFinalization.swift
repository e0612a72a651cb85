import Foundation

/// An acknowledge or consume call (of a one-time product or a subscription) the stand-in Google Play received,
/// whatever it answered.
package struct RecordedGoogleFinalization: Sendable, Equatable {
    /// What was asked.
    package enum Action: String, Sendable {
        /// `purchases.products.acknowledge`.
        case acknowledge
        /// `purchases.products.consume`.
        case consume
        /// `purchases.subscriptions.acknowledge`.
        case acknowledgeSubscription = "acknowledge_subscription"
    }

    /// The purchase token in the path.
    package var token: String
    /// The product id in the path.
    package var productID: String
    /// Acknowledge or consume.
    package var action: Action
    /// The HTTP status answered (200 when it took effect).
    package var httpStatus: Int
    /// When it arrived.
    package var receivedAt: Date
}
