import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

extension Fixture {
    /// Records a Google notification whose RTDN data is `data` (JSON) as the intake records a verified push (the
    /// agreed payload, `awaiting_lookup` as `needsLookup` says, a voided purchase's orderId); returns its id.
    @discardableResult
    func recordGoogle(_ data: String, published: Date = Date()) async throws -> Int64 {
        let notification = try JSONDecoder().decode(GoogleDeveloperNotification.self, from: Data(data.utf8))
        let messageID = String(UInt64.random(in: 1...UInt64.max))
        let publishTime = ISO8601DateFormatter().string(from: published)
        let payload = #"""
            {"message": {"messageId": "\#(messageID)", "publishTime": "\#(publishTime)", "attributes": {},
             "subscription": "projects/p/subscriptions/s"}, "notification": \#(data)}
            """#
        let voided = notification.voidedPurchaseNotification
        return try await record(
            StoreNotification(
                store: .google,
                notificationID: messageID,
                type: notification.typeName,
                // The ledger id is the orderId (the tests' voided purchases all have one).
                transactionID: voided?.orderId,
                signedAt: published,
                source: .push,
                payload: payload,
                awaitingLookup: notification.needsLookup
            )
        )
    }

    /// Records Google's `ONE_TIME_PRODUCT_PURCHASED` (1) or `ONE_TIME_PRODUCT_CANCELED` (2) of `token`.
    @discardableResult
    func recordGoogleOneTime(_ kind: Int, token: String, product: String = "gems") async throws -> Int64 {
        try await recordGoogle(
            #"""
            {"version": "1.0", "packageName": "\#(GooglePlayStandIn.Configuration().packageName)",
             "eventTimeMillis": "\#(Int64(Date().timeIntervalSince1970 * 1000))",
             "oneTimeProductNotification": {"version": "1.0", "notificationType": \#(kind),
                                            "purchaseToken": "\#(token)", "sku": "\#(product)"}}
            """#
        )
    }

    /// Records Google's `VOIDED_PURCHASE` of `token` (`refundType` 1 full, 2 quantity-based partial) that
    /// happened at `eventTimeMillis` (now by default).
    @discardableResult
    func recordGoogleVoided(
        token: String,
        orderID: String?,
        refundType: Int,
        eventTimeMillis: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) async throws -> Int64 {
        let order = orderID.map { #""orderId": "\#($0)", "# } ?? ""
        return try await recordGoogle(
            #"""
            {"version": "1.0", "packageName": "\#(GooglePlayStandIn.Configuration().packageName)",
             "eventTimeMillis": "\#(eventTimeMillis)",
             "voidedPurchaseNotification": {"purchaseToken": "\#(token)", \#(order)"productType": 2,
                                            "refundType": \#(refundType)}}
            """#
        )
    }

    /// Successful acknowledge calls the stand-in received for `token`.
    func acknowledgements(_ google: GooglePlayStandIn, token: String) -> Int {
        google.recordedFinalizations().filter { $0.token == token && $0.httpStatus == 200 }.count
    }
}
