import Foundation

/// A purchase lookup (productsv2 or `purchases.products.get`) the stand-in Google Play received, whatever it
/// answered.
package struct RecordedGooglePurchaseQuery: Sendable, Equatable {
    /// The purchase token in the path.
    package var token: String
    /// The product id in the path; empty for productsv2, whose path names none.
    package var productID: String
    /// The HTTP status answered; 0 when a script step closed the connection instead.
    package var httpStatus: Int
    /// Why the bearer token was refused (the call was answered 401), or `nil`.
    package var bearerFailure: String?
    /// When it arrived.
    package var receivedAt: Date
}
