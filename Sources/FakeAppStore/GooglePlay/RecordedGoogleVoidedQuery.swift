import Foundation

/// A `purchases.voidedpurchases.list` call the stand-in Google Play received.
package struct RecordedGoogleVoidedQuery: Sendable, Equatable {
    /// `startTime` asked, in UNIX milliseconds; `nil` when absent.
    package var startTime: Int64?
    /// The page token (`token`) asked; `nil` for a first page.
    package var token: String?
    /// `type` asked (`1` lists subscriptions too); `nil` when absent.
    package var type: String?
    /// The HTTP status answered.
    package var httpStatus: Int
    /// When it arrived.
    package var receivedAt: Date
}
