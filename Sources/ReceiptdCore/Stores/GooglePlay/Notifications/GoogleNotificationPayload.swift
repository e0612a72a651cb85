import Foundation

/// What processing reads from a Google row's `iap.store_notifications.payload`: `{"message": …, "notification":
/// <the RTDN data object>}`, with the lookup's `"purchase"` (productsv2), `"subscription"` (subscriptionsv2) or
/// `"voided"` (voided purchases list entries of this purchase) once it has asked.
package struct GoogleNotificationPayload: Sendable, Equatable {
    /// The decoded RTDN data.
    package var notification: GoogleDeveloperNotification
    /// The lookup's productsv2 answer, if it has asked.
    var purchase: GoogleProductPurchase?
    /// The lookup's voided purchases list entries of this purchase, if it has asked.
    var voided: [GoogleVoidedPurchasesPage.Entry]?
    /// The lookup's subscriptionsv2 answer, for a subscription bought, if it has asked.
    var subscription: GoogleSubscriptionPurchase?

    /// Reads `payload`; a `NotificationPayloadError` when it is not in the agreed format.
    package init(payload: String) throws {
        guard let data = payload.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw NotificationPayloadError(reason: "payload is not a JSON object") }
        guard let notification = object["notification"] as? [String: Any],
            let notificationData = try? JSONSerialization.data(withJSONObject: notification),
            let decoded = try? JSONDecoder().decode(GoogleDeveloperNotification.self, from: notificationData)
        else { throw NotificationPayloadError(reason: "payload has no readable notification object") }
        self.notification = decoded
        if let purchase = object["purchase"], !(purchase is NSNull) {
            guard let purchaseData = try? JSONSerialization.data(withJSONObject: purchase),
                let decoded = try? JSONDecoder().decode(GoogleProductPurchase.self, from: purchaseData)
            else { throw NotificationPayloadError(reason: "payload.purchase is not a readable purchase answer") }
            self.purchase = decoded
        }
        if let subscription = object["subscription"], !(subscription is NSNull) {
            guard let subscriptionData = try? JSONSerialization.data(withJSONObject: subscription),
                let decoded = try? JSONDecoder().decode(GoogleSubscriptionPurchase.self, from: subscriptionData)
            else {
                throw NotificationPayloadError(reason: "payload.subscription is not a readable subscription answer")
            }
            self.subscription = decoded
        }
        if let voided = object["voided"], !(voided is NSNull) {
            guard let entries = voided as? [Any],
                let voidedData = try? JSONSerialization.data(withJSONObject: entries),
                let decoded = try? JSONDecoder().decode([GoogleVoidedPurchasesPage.Entry].self, from: voidedData)
            else { throw NotificationPayloadError(reason: "payload.voided is not a list of voided purchases") }
            self.voided = decoded
        }
    }
}
