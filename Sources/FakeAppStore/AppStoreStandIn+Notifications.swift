import AsyncHTTPClient
import Foundation
import NIOCore

/// The stand-in's side of App Store Server Notifications V2, on the same port as the rest:
/// - `PUT /inApps/v2/transactions/consumption/{id}` (and under `/sandbox`), Send Consumption Information v2: the
///   bearer check (401), then the next step of the consumption script if any (``scriptConsumption(_:)``,
///   `POST /fake/consumption-script` with `{"script":[steps]}`), then 400 `{"errorCode":4000000}` unless the body
///   has `customerConsented` true, a `deliveryStatus` and `sampleContentProvided`, else 202 with an empty body; a
///   step's `delay_ms` holds the answer back (a step with only a delay: the usual answer, late). Every call is
///   recorded (``recordedConsumptionRequests()``).
/// - `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken` (and under `/sandbox`), Set App Account
///   Token: the bearer check (401), then the next step of its script if any (``scriptAppAccountToken(_:)``), then 400
///   `{"errorCode":4000183}` unless the body's `appAccountToken` is a UUID, else 200 with an empty body. Every call is
///   recorded (``recordedAppAccountTokenRequests()``).
/// - `POST /inApps/v1/notifications/history` (and under `/sandbox`), Get Notification History: the bearer check,
///   the history script (``scriptNotificationHistory(_:)``, `POST /fake/notification-history-script`), then the
///   notifications this stand-in sent in that environment whose `signedDate` is in [`startDate`, `endDate`), oldest
///   first, 20 a page with `hasMore` and `paginationToken` (the next page: `?paginationToken=`); 400 for a missing
///   or inverted window, a `startDate` further back than Apple keeps (180 days, 30 in the sandbox) or a foreign token.
///   Every call is recorded (``recordedNotificationHistoryQueries()``).
/// - `POST /fake/notifications` with a ``ServerAPINotificationOrder``: signs the notification with ``testChain``,
///   remembers it in the history, posts `{"signedPayload": …}` to its `url` unless `"deliver": false`, and answers
///   200 with a ``NotificationSendResult`` (the target's HTTP status); 400 for a bad order.
extension AppStoreStandIn {
    /// Sends the notification `order` describes (see `POST /fake/notifications`).
    package func sendNotification(_ order: ServerAPINotificationOrder) async throws -> NotificationSendResult {
        try await notificationLedger.send(order)
    }

    /// The notifications sent so far, delivered or not, in the order they were sent.
    package func sentNotifications() -> [SentNotification] {
        notificationLedger.sent()
    }

    /// The steps the next Send Consumption Information calls get, one a call (e.g. `ScriptStep(http: 500)`).
    package func scriptConsumption(_ steps: [ScriptStep]) {
        notificationLedger.scriptConsumption(steps)
    }

    /// The steps the next Get Notification History calls get, one a call.
    package func scriptNotificationHistory(_ steps: [ScriptStep]) {
        notificationLedger.scriptHistory(steps)
    }

    /// Every Send Consumption Information call so far, in arrival order.
    package func recordedConsumptionRequests() -> [RecordedConsumptionRequest] {
        notificationLedger.consumptionRequests()
    }

    /// The steps the next Set App Account Token calls get, one a call (e.g. `ScriptStep(http: 500)`).
    package func scriptAppAccountToken(_ steps: [ScriptStep]) {
        notificationLedger.scriptAppAccountToken(steps)
    }

    /// Every Set App Account Token call so far, in arrival order.
    package func recordedAppAccountTokenRequests() -> [RecordedAppAccountTokenRequest] {
        notificationLedger.appAccountTokenRequests()
    }

    /// Every Get Notification History call so far, in arrival order.
    package func recordedNotificationHistoryQueries() -> [RecordedNotificationHistoryQuery] {
        notificationLedger.historyQueries()
    }

    /// Asks the stand-in serving at `standInURL` (`http://HOST:PORT`, another process's) to send `order`: for the
    /// CLI and the demo. Throws when the stand-in cannot be reached or refuses the order.
    package static func requestNotification(
        standInURL: String,
        _ order: ServerAPINotificationOrder
    ) async throws -> NotificationSendResult {
        var request = HTTPClientRequest(url: standInURL + "/fake/notifications")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(order)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard response.status == .ok else {
            throw NotificationRequestRefused(
                status: Int(response.status.code),
                message: String(decoding: body, as: UTF8.self)
            )
        }
        return try JSONDecoder().decode(NotificationSendResult.self, from: body)
    }
}
