import Foundation

/// A `purchases.products.get` call the stand-in Google Play received, whatever it answered.
package struct RecordedGooglePurchaseQuery: Sendable, Equatable {
    /// The purchase token in the path.
    package var token: String
    /// The product id in the path.
    package var productID: String
    /// The HTTP status answered; 0 when a script step closed the connection instead.
    package var httpStatus: Int
    /// Why the bearer token was refused (the call was answered 401), or `nil`.
    package var bearerFailure: String?
    /// When it arrived.
    package var receivedAt: Date
}
