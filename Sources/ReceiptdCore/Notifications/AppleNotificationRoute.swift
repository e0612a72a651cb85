import Foundation
import Logging

/// `POST /notifications/apple`: Apple's body `{"signedPayload": "<JWS>"}`, verified by
/// `AppleNotificationVerifier` and recorded through `NotificationIntake` before the answer.
package struct AppleNotificationRoute: NotificationRoute {
    /// Always the App Store.
    package var store: Store { .apple }
    /// `/notifications/apple`.
    package var path: String { "/notifications/apple" }
    /// 256 KiB: Apple's signed payloads are a few KiB.
    package var bodyLimit: Int { 256 * 1024 }

    private let verifier: AppleNotificationVerifier
    private let intake: any NotificationIntake
    private let logger: Logger

    /// Creates the route; notifications that pass `verifier` are recorded in `intake`.
    package init(verifier: AppleNotificationVerifier, intake: any NotificationIntake, logger: Logger) {
        self.verifier = verifier
        self.intake = intake
        self.logger = logger
    }

    /// Verifies and records; a refusal says why, without the payload.
    package func take(
        _ body: [UInt8],
        headers: [String: String]
    ) async throws(NotificationRefusal) -> NotificationTaken {
        guard let request = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
            throw NotificationRefusal(.badRequest, reason: "body", "body is not {\"signedPayload\": \"<JWS>\"}")
        }
        let notification: StoreNotification
        do {
            notification = try await verifier.verify(signedPayload: request.signedPayload, source: .push)
        } catch {
            throw NotificationRefusal(
                error.isMalformed ? .badRequest : .unauthorized,
                reason: error.reason.rawValue,
                error.description
            )
        }
        do {
            let new = try await intake.record(notification)
            logger.debug(
                new ? "recorded a store notification" : "store notification was recorded before",
                metadata: [
                    "store": "apple", "notification_id": "\(notification.notificationID)",
                    "notification_type": "\(notification.type)",
                ]
            )
            return .recorded(new: new)
        } catch {
            throw NotificationRefusal(.unavailable, reason: "database", "cannot record the notification: \(error)")
        }
    }

    /// Apple's request body.
    private struct Body: Decodable {
        var signedPayload: String
    }
}
