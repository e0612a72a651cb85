import Foundation

/// An acknowledge or consume call the stand-in Google Play received, whatever it answered.
public struct RecordedGoogleFinalization: Sendable, Equatable {
    /// What was asked.
    public enum Action: String, Sendable {
        /// `purchases.products.acknowledge`.
        case acknowledge
        /// `purchases.products.consume`.
        case consume
    }

    /// The purchase token in the path.
    public var token: String
    /// The product id in the path.
    public var productID: String
    /// Acknowledge or consume.
    public var action: Action
    /// The HTTP status answered (200 when it took effect).
    public var httpStatus: Int
    /// When it arrived.
    public var receivedAt: Date
}
