import Foundation

/// What processing reads from `iap.store_notifications.payload` (`{"notification": …, "transaction": …,
/// "appTransaction": …}`).
package struct StoredNotificationPayload: Sendable, Equatable {
    /// Whether the notification has `data` (a summary has not).
    package var hasData: Bool
    /// The verified transaction, when the notification has one.
    package var transaction: NotifiedTransaction?
    /// The nested signed transaction as Apple sent it (`notification.data.signedTransactionInfo`).
    package var signedTransactionInfo: String?
    /// Why Apple asks for consumption information (`notification.data.consumptionRequestReason`), if it says.
    package var consumptionRequestReason: String?
    /// An auto-renewable's signed renewal info as Apple sent it (`notification.data.signedRenewalInfo`), inside the
    /// verified notification.
    package var signedRenewalInfo: String?
    /// An auto-renewable's status when Apple signed it (`notification.data.status`: 1 active … 5 revoked).
    package var subscriptionStatus: Int?
    /// The verified app transaction's `appTransactionId` (`RESCIND_CONSENT`'s `appData.signedAppTransactionInfo`).
    package var appTransactionID: String?

    /// Reads `payload`; a `NotificationPayloadError` when it is not in the agreed format.
    package init(payload: String) throws {
        guard let data = payload.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw NotificationPayloadError(reason: "payload is not a JSON object") }
        guard let notification = object["notification"] as? [String: Any] else {
            throw NotificationPayloadError(reason: "payload has no notification object")
        }
        let fields = notification["data"] as? [String: Any]
        hasData = fields != nil
        signedTransactionInfo = fields?["signedTransactionInfo"] as? String
        signedRenewalInfo = fields?["signedRenewalInfo"] as? String
        subscriptionStatus = FlexibleJSON.integer(fields?["status"]).map { Int(clamping: $0) }
        consumptionRequestReason = (fields?["consumptionRequestReason"] as? String).map { String($0.prefix(100)) }
        appTransactionID = (object["appTransaction"] as? [String: Any])?["appTransactionId"] as? String
        if let transaction = object["transaction"], !(transaction is NSNull) {
            guard let transactionFields = transaction as? [String: Any] else {
                throw NotificationPayloadError(reason: "payload.transaction is not an object")
            }
            self.transaction = try NotifiedTransaction(fields: transactionFields)
        } else {
            transaction = nil
        }
    }
}
