import Foundation

/// A `purchases.voidedpurchases.list` call the stand-in Google Play received.
public struct RecordedGoogleVoidedQuery: Sendable, Equatable {
    /// `startTime` asked, in UNIX milliseconds; `nil` when absent.
    public var startTime: Int64?
    /// The page token (`token`) asked; `nil` for a first page.
    public var token: String?
    /// The HTTP status answered.
    public var httpStatus: Int
    /// When it arrived.
    public var receivedAt: Date
}
