import Foundation
import ReceiptdCore

/// TEST ONLY: reads a notification's `signedPayload` (and its nested `signedTransactionInfo`) without checking any
/// signature, into the record the App Store notification verifier gives: what the catch-up's tests pass as its
/// verifier. Refuses a payload whose `data.bundleId` is not `bundleID`, so a test can have one fail verification.
enum UncheckedNotificationDecoder {
    /// Why a payload was refused.
    struct Refused: Error {}

    /// The verifier closure for `NotificationHistoryPoller`.
    static func verifier(bundleID: String = "com.example.game") -> NotificationHistoryPoller.Verify {
        { signedPayload in try decode(signedPayload, bundleID: bundleID) }
    }

    /// The notification `signedPayload` carries.
    static func decode(_ signedPayload: String, bundleID: String) throws -> StoreNotification {
        let notification = try object(of: signedPayload)
        let data = notification["data"] as? [String: Any]
        if let data, data["bundleId"] as? String != bundleID { throw Refused() }
        let transaction = try (data?["signedTransactionInfo"] as? String).map(object(of:))
        var payload: [String: Any] = ["notification": notification]
        if let transaction { payload["transaction"] = transaction }
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
            as: UTF8.self
        )
        guard let id = notification["notificationUUID"] as? String,
            let type = notification["notificationType"] as? String
        else { throw Refused() }
        return StoreNotification(
            store: .apple,
            notificationID: id,
            type: type,
            subtype: notification["subtype"] as? String,
            transactionID: transaction?["transactionId"] as? String,
            originalTransactionID: transaction?["originalTransactionId"] as? String,
            environment: (data?["environment"] as? String).flatMap(StoreEnvironment.init(rawValue:)),
            signedAt: (notification["signedDate"] as? NSNumber).map {
                Date(timeIntervalSince1970: $0.doubleValue / 1000)
            },
            source: .history,
            payload: text
        )
    }

    /// The JSON object of a compact JWS's payload.
    private static func object(of jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw Refused() }
        return object
    }
}
