import AsyncHTTPClient
import Foundation
import Logging

/// `POST /notifications/google`: a Cloud Pub/Sub push of a real-time developer notification. The OIDC token is
/// checked first (``GoogleOIDCVerifier``; 401 `token`, 503 `keys` while Google's keys cannot be fetched), then the
/// body is read (400 `body` or `malformed`); a message for another app (`packageName` is not
/// `GOOGLE_PLAY_PACKAGE_NAME`, a topic several apps share) is answered 204 and not recorded, anything else is
/// recorded through `NotificationIntake` before the answer (503 `database` when it cannot be). Without
/// `GOOGLE_PUBSUB_AUDIENCE`, `GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL` and `GOOGLE_PLAY_PACKAGE_NAME` every push is
/// refused 401 `not_configured`.
package struct GoogleNotificationRoute: NotificationRoute {
    /// Always Google Play.
    package var store: Store { .google }
    /// `/notifications/google`.
    package var path: String { "/notifications/google" }
    /// 64 KiB: a push body is well under one.
    package var bodyLimit: Int { 64 * 1024 }

    private let verifier: GoogleOIDCVerifier?
    private let packageName: String
    private let unavailable: String?
    private let intake: any NotificationIntake
    private let logger: Logger
    private let metrics: ReceiptdMetrics
    private let skips: RefusalLog

    /// Creates the route for the app and push subscription `configuration` names; Google's keys are fetched
    /// with `client`, pushes that pass are recorded in `intake`, and skipped ones (another app's) counted in
    /// `metrics` and logged at most once per `skipLogInterval`.
    package init(
        configuration: GooglePlayConfiguration,
        client: HTTPClient,
        intake: any NotificationIntake,
        logger: Logger,
        metrics: ReceiptdMetrics = ReceiptdMetrics(),
        skipLogInterval: Duration = .seconds(60)
    ) {
        if let audience = configuration.pubsubAudience, let email = configuration.pubsubServiceAccountEmail {
            verifier = GoogleOIDCVerifier(
                audience: audience,
                email: email,
                keys: GoogleOIDCKeys(url: configuration.oidcCertsURL, client: client)
            )
        } else {
            verifier = nil
        }
        packageName = configuration.packageName ?? ""
        unavailable =
            configuration.pushUnavailable ?? (configuration.packageName == nil ? "set GOOGLE_PLAY_PACKAGE_NAME" : nil)
        self.intake = intake
        self.logger = logger
        self.metrics = metrics
        skips = RefusalLog(interval: skipLogInterval)
    }

    /// Authenticates, reads and records; a refusal says why, without the token or the payload.
    package func take(
        _ body: [UInt8],
        headers: [String: String]
    ) async throws(NotificationRefusal) -> NotificationTaken {
        guard let verifier, unavailable == nil else {
            throw NotificationRefusal(
                .unauthorized,
                reason: "not_configured",
                "Google pushes are refused: \(unavailable ?? "not configured")"
            )
        }
        do {
            try await verifier.verify(authorization: headers["authorization"])
        } catch {
            switch error {
            case .token: throw NotificationRefusal(.unauthorized, reason: "token", error.description)
            case .keysUnavailable: throw NotificationRefusal(.unavailable, reason: "keys", error.description)
            }
        }
        let message: GooglePushMessage
        let notification: GoogleDeveloperNotification
        let text: String
        do {
            message = try GooglePushMessage(body: body)
        } catch {
            throw NotificationRefusal(.badRequest, reason: error.reason, error.description)
        }
        do {
            notification = try JSONDecoder().decode(GoogleDeveloperNotification.self, from: message.data)
            guard let utf8 = String(data: message.data, encoding: .utf8) else { throw CocoaError(.coderInvalidValue) }
            text = utf8
        } catch {
            throw NotificationRefusal(.badRequest, reason: "malformed", "message data is not a developer notification")
        }
        guard notification.packageName == packageName else {
            metrics.notificationRefused(store: .google, reason: "other_package")
            if let count = skips.note("other_package") {
                logger.warning(
                    "skipped a Google notification for another app (the topic is shared)",
                    metadata: [
                        "package": "\(notification.packageName.prefix(200))",
                        "notification_id": "\(message.messageID.prefix(100))", "skipped_since_last_line": "\(count)",
                    ]
                )
            }
            return .skipped
        }
        let voided = notification.voidedPurchaseNotification
        let record = StoreNotification(
            store: .google,
            notificationID: message.messageID,
            type: notification.typeName,
            transactionID: voided.map { GoogleLedgerID.of(orderID: $0.orderId, token: $0.purchaseToken) }
                ?? notification.pendingRefundReviewNotification?.orderId,
            signedAt: message.published,
            source: .push,
            payload: #"{"message": "# + message.recordedJSON + #", "notification": "# + text + "}",
            awaitingLookup: notification.needsLookup
        )
        do {
            let new = try await intake.record(record)
            logger.debug(
                new ? "recorded a store notification" : "store notification was recorded before",
                metadata: [
                    "store": "google", "notification_id": "\(record.notificationID)",
                    "notification_type": "\(record.type)",
                ]
            )
            return .recorded(new: new)
        } catch {
            throw NotificationRefusal(.unavailable, reason: "database", "cannot record the notification: \(error)")
        }
    }
}
