import Foundation

/// The decoded payload of an App Store Server Notification V2 (`responseBodyV2DecodedPayload`), as the stand-in
/// signs it: the fields receiptd reads, with Apple's JSON keys (dates in milliseconds since 1970).
package struct AppleNotificationPayload: Sendable, Equatable {
    /// `REFUND`, `REFUND_DECLINED`, `REFUND_REVERSED`, `REVOKE`, `CONSUMPTION_REQUEST`, `ONE_TIME_CHARGE`, `TEST`, …
    package var notificationType: String
    /// The subtype, if the type has one.
    package var subtype: String?
    /// Unique per notification; a retry of one notification carries the same.
    package var notificationUUID: String
    /// When Apple signed it; the same on every retry of one notification.
    package var signedDate: Int64
    /// The app's bundle id (`data.bundleId`).
    package var bundleId: String
    /// The app's Apple ID (`data.appAppleId`); absent in the sandbox.
    package var appAppleId: Int64?
    /// `Production` or `Sandbox` (`data.environment`).
    package var environment: String
    /// `data.consumptionRequestReason` of a CONSUMPTION_REQUEST (`UNINTENDED_PURCHASE`, `OTHER`, …).
    package var consumptionRequestReason: String?
    /// The transaction it is about, signed on its own (`data.signedTransactionInfo`); nil leaves it out.
    package var signedTransactionInfo: String?
    /// An auto-renewable's renewal info, signed on its own (`data.signedRenewalInfo`); nil leaves it out.
    package var signedRenewalInfo: String?
    /// An auto-renewable's status (`data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
    package var status: Int?
    /// Whether the payload has `data` at all; without it, a `summary` stands in (as for a summary notification).
    package var hasData: Bool
    /// A signed app transaction: with it the payload carries `appData` (`bundleId`, `environment`, `appAppleId`,
    /// `signedAppTransactionInfo`) and neither `data` nor `summary`, as `RESCIND_CONSENT` does.
    package var signedAppTransactionInfo: String?

    /// Creates a payload; a production notification signed now with a fresh UUID unless told otherwise.
    package init(
        notificationType: String,
        subtype: String? = nil,
        notificationUUID: String = UUID().uuidString.lowercased(),
        signedDate: Int64 = SignedTransactionPayload.nowMilliseconds(),
        bundleId: String = SyntheticReceipt.defaultBundleID,
        appAppleId: Int64? = nil,
        environment: String = "Production",
        consumptionRequestReason: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil,
        status: Int? = nil,
        hasData: Bool = true,
        signedAppTransactionInfo: String? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.consumptionRequestReason = consumptionRequestReason
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.hasData = hasData
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }

    /// The payload's JSON, keys sorted.
    package func encodedJSON() -> Data {
        var object: [String: Any] = [
            "notificationType": notificationType, "notificationUUID": notificationUUID, "signedDate": signedDate,
            "version": "2.0",
        ]
        if let subtype { object["subtype"] = subtype }
        if let signedAppTransactionInfo {
            var appData: [String: Any] = [
                "bundleId": bundleId, "environment": environment, "signedAppTransactionInfo": signedAppTransactionInfo,
            ]
            if let appAppleId { appData["appAppleId"] = appAppleId }
            object["appData"] = appData
        } else if hasData {
            var data: [String: Any] = ["bundleId": bundleId, "environment": environment, "bundleVersion": "1"]
            if let appAppleId { data["appAppleId"] = appAppleId }
            if let consumptionRequestReason { data["consumptionRequestReason"] = consumptionRequestReason }
            if let signedTransactionInfo { data["signedTransactionInfo"] = signedTransactionInfo }
            if let signedRenewalInfo { data["signedRenewalInfo"] = signedRenewalInfo }
            if let status { data["status"] = status }
            object["data"] = data
        } else {
            object["summary"] = [
                "requestIdentifier": UUID().uuidString.lowercased(), "environment": environment,
                "bundleId": bundleId, "productId": "summary", "succeededCount": 0, "failedCount": 0,
            ]
        }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            // Only strings and integers: serializing cannot fail.
            preconditionFailure("AppleNotificationPayload failed to encode: \(error)")
        }
    }
}
