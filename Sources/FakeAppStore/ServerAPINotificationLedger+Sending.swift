import AsyncHTTPClient
import Foundation
import NIOCore

extension ServerAPINotificationLedger {
    /// Signs the notification `order` describes, remembers it in the history, and posts it to its URL unless told
    /// not to; returns what the target answered. Throws ``ServerAPINotificationOrderError`` for an order that cannot
    /// be sent (a delivery without a URL).
    func send(_ order: ServerAPINotificationOrder) async throws -> NotificationSendResult {
        let deliver = order.deliver ?? true
        guard !deliver || order.url != nil else { throw ServerAPINotificationOrderError.noURL }
        let environment = order.environment ?? order.transaction?.environment ?? "Production"
        let bundleID = order.bundleId ?? SyntheticReceipt.defaultBundleID
        let appTransaction = order.appTransactionId.map {
            chain.sign(
                payload: AppTransactionPayload(
                    appTransactionId: $0,
                    bundleId: bundleID,
                    appAppleId: order.appAppleId,
                    receiptType: environment
                ).encodedJSON()
            )
        }
        let payload = AppleNotificationPayload(
            notificationType: order.notificationType,
            subtype: order.subtype,
            notificationUUID: order.notificationUUID ?? UUID().uuidString.lowercased(),
            signedDate: order.signedDate ?? SignedTransactionPayload.nowMilliseconds(),
            bundleId: bundleID,
            appAppleId: order.appAppleId,
            environment: environment,
            consumptionRequestReason: order.consumptionRequestReason
                ?? (order.notificationType == "CONSUMPTION_REQUEST" ? "UNINTENDED_PURCHASE" : nil),
            signedTransactionInfo: order.transaction.map(chain.signedTransaction),
            signedRenewalInfo: order.signedRenewalInfo,
            status: order.status,
            signedAppTransactionInfo: appTransaction
        )
        let signed = chain.signedNotification(payload)
        var sent = SentNotification(
            notificationUUID: payload.notificationUUID,
            notificationType: payload.notificationType,
            subtype: payload.subtype,
            environment: environment,
            signedDate: payload.signedDate,
            signedPayload: signed,
            url: deliver ? order.url : nil
        )
        // In the history before it is posted, as at Apple: a catch-up racing the post finds it either way.
        remember(sent)
        if deliver, let url = order.url {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: "{\"signedPayload\":\"\(signed)\"}"))
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                _ = try? await response.body.collect(upTo: 1 << 16)
                sent.httpStatus = Int(response.status.code)
            } catch {
                sent.error = "\(error)"
            }
            remember(sent)
        }
        return NotificationSendResult(
            notificationUUID: sent.notificationUUID,
            signedPayload: signed,
            delivered: deliver,
            httpStatus: sent.httpStatus,
            error: sent.error
        )
    }
}
