import Foundation

/// A call of the stand-in Google Play's token endpoint.
package struct RecordedGoogleTokenRequest: Sendable, Equatable {
    /// Whether an access token was issued.
    package var accepted: Bool
    /// Why not (the `error_description` answered), or `nil` when accepted.
    package var failure: String?
    /// When it arrived.
    package var receivedAt: Date
}
