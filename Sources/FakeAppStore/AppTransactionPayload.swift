import Foundation

/// The decoded payload of a signed app transaction (`JWSAppTransactionDecodedPayload`) as the stand-in signs it for
/// `RESCIND_CONSENT`'s `appData.signedAppTransactionInfo`, with Apple's JSON keys (dates in milliseconds since 1970).
package struct AppTransactionPayload: Sendable, Equatable {
    /// `appTransactionId`: the player's download of the app.
    package var appTransactionId: String
    /// `bundleId`.
    package var bundleId: String
    /// `appAppleId`; absent in the sandbox.
    package var appAppleId: Int64?
    /// `receiptType`: `Production` or `Sandbox`.
    package var receiptType: String
    /// `receiptCreationDate`: when the App Store signed it.
    package var receiptCreationDate: Int64

    /// Creates a payload signed now.
    package init(
        appTransactionId: String,
        bundleId: String = SyntheticReceipt.defaultBundleID,
        appAppleId: Int64? = nil,
        receiptType: String = "Production",
        receiptCreationDate: Int64 = SignedTransactionPayload.nowMilliseconds()
    ) {
        self.appTransactionId = appTransactionId
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.receiptType = receiptType
        self.receiptCreationDate = receiptCreationDate
    }

    /// The payload's JSON, keys sorted.
    package func encodedJSON() -> Data {
        var object: [String: Any] = [
            "appTransactionId": appTransactionId, "bundleId": bundleId, "receiptType": receiptType,
            "receiptCreationDate": receiptCreationDate, "originalPurchaseDate": receiptCreationDate,
            "applicationVersion": "1", "originalApplicationVersion": "1", "originalPlatform": "iOS",
        ]
        if let appAppleId { object["appAppleId"] = appAppleId }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            // Only strings and integers: serializing cannot fail.
            preconditionFailure("AppTransactionPayload failed to encode: \(error)")
        }
    }
}
