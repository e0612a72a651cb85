import Foundation

/// A `purchases.products.get` call the stand-in Google Play received, whatever it answered.
public struct RecordedGooglePurchaseQuery: Sendable, Equatable {
    /// The purchase token in the path.
    public var token: String
    /// The product id in the path.
    public var productID: String
    /// The HTTP status answered; 0 when a script step closed the connection instead.
    public var httpStatus: Int
    /// Why the bearer token was refused (the call was answered 401), or `nil`.
    public var bearerFailure: String?
    /// When it arrived.
    public var receivedAt: Date
}
