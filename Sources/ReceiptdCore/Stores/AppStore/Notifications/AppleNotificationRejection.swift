/// Why the intake refused an App Store notification: the check that failed, and whether the request was
/// malformed (HTTP 400) or not one Apple made for this app (HTTP 401). Never holds the payload.
package struct AppleNotificationRejection: Error, Equatable, CustomStringConvertible {
    /// The failed check, a fixed vocabulary: the `reason` label of `receiptd_notifications_refused_total`.
    package enum Reason: String, Sendable, CaseIterable {
        /// Not a compact JWS, not JSON, or without the fields every notification has (400).
        case malformed
        /// The header's `alg` or `x5c`, the chain to a trusted root at `signedDate`, or Apple's OIDs (401).
        case chain
        /// The signature does not verify with the leaf's key (401).
        case signature
        /// `bundleId` is not `APPLE_BUNDLE_ID`, or the notification names no bundle (401).
        case bundle
        /// `environment` is not one `RECEIPTD_SANDBOX` allows, or the transaction's differs (401).
        case environment
        /// `appAppleId` is not `APPLE_APP_ID` (401).
        case appAppleID = "app_apple_id"
    }

    /// The failed check.
    package var reason: Reason
    /// The failed check, in words.
    package var description: String

    /// True for a request that is not well-formed (400); false for one that fails a check of trust (401).
    package var isMalformed: Bool { reason == .malformed }

    /// Creates a rejection.
    package init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
