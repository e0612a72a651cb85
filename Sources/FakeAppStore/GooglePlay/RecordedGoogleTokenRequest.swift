import Foundation

/// A call of the stand-in Google Play's token endpoint.
public struct RecordedGoogleTokenRequest: Sendable, Equatable {
    /// Whether an access token was issued.
    public var accepted: Bool
    /// Why not (the `error_description` answered), or `nil` when accepted.
    public var failure: String?
    /// When it arrived.
    public var receivedAt: Date
}
