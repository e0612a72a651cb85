import Foundation

/// An acknowledge or consume call the stand-in Google Play received.
public struct RecordedGoogleFinalization: Sendable, Equatable {
    /// What was asked.
    public enum Action: String, Sendable {
        /// `:acknowledge`.
        case acknowledge
        /// `:consume`.
        case consume
    }

    /// The purchase token.
    public var token: String
    /// The product in the path.
    public var productID: String
    /// Acknowledge or consume.
    public var action: Action
    /// The HTTP status answered.
    public var httpStatus: Int
    /// When it arrived.
    public var receivedAt: Date
}

/// A `purchases.products.get` call the stand-in received.
public struct RecordedGooglePurchaseQuery: Sendable, Equatable {
    /// The purchase token.
    public var token: String
    /// The product in the path.
    public var productID: String
    /// The HTTP status answered.
    public var httpStatus: Int
    /// Why the bearer was refused, if it was.
    public var bearerFailure: String?
    /// When it arrived.
    public var receivedAt: Date
}

/// A request to the stand-in's token endpoint.
public struct RecordedGoogleTokenRequest: Sendable, Equatable {
    /// Whether an access token was issued.
    public var accepted: Bool
    /// Why not, if it was refused.
    public var failure: String?
    /// When it arrived.
    public var receivedAt: Date
}
