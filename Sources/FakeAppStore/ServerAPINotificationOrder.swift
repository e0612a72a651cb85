/// What `POST /fake/notifications` (and ``AppStoreStandIn/sendNotification(_:)``) is asked to send: a notification
/// of any type, about any transaction, signed with the stand-in's chain, remembered in its notification history
/// and, unless `deliver` is false, posted to `url` as Apple posts it (`{"signedPayload": "<JWS>"}`).
///
/// JSON keys are the property names: `{"notificationType":"REFUND","transaction":{"transactionId":"42",
/// "productId":"gems","revocationDate":…,"revocationReason":0},"url":"http://…/notifications/apple"}`.
package struct ServerAPINotificationOrder: Codable, Sendable, Equatable {
    /// `REFUND`, `REFUND_DECLINED`, `REFUND_REVERSED`, `REVOKE`, `CONSUMPTION_REQUEST`, `ONE_TIME_CHARGE`, `TEST`, …
    package var notificationType: String
    /// The subtype, if any.
    package var subtype: String?
    /// The transaction it is about, signed as `data.signedTransactionInfo`; none for `TEST`.
    package var transaction: SignedTransactionPayload?
    /// An auto-renewable's renewal info, already signed (`data.signedRenewalInfo`).
    package var signedRenewalInfo: String?
    /// An auto-renewable's status (`data.status`).
    package var status: Int?
    /// `Production` or `Sandbox`; by default the transaction's, else `Production`.
    package var environment: String?
    /// `data.consumptionRequestReason` (a CONSUMPTION_REQUEST's; `UNINTENDED_PURCHASE` by default for that type).
    package var consumptionRequestReason: String?
    /// The notification's id; a fresh UUID by default. The same again is a retry of one notification.
    package var notificationUUID: String?
    /// When it is signed (milliseconds since 1970); now by default.
    package var signedDate: Int64?
    /// `data.bundleId`; the stand-in's default bundle id by default.
    package var bundleId: String?
    /// `data.appAppleId`, if any.
    package var appAppleId: Int64?
    /// Where to post it (the intake's `POST /notifications/apple`); none only with `deliver` false.
    package var url: String?
    /// False keeps it in the history only, as if the intake had been down when Apple sent it.
    package var deliver: Bool?
    /// An app transaction's id: the notification then carries `appData` with that app transaction signed
    /// (`signedAppTransactionInfo`) instead of `data`, as `RESCIND_CONSENT` does.
    package var appTransactionId: String?

    /// Creates an order; only the type is required.
    package init(
        notificationType: String,
        subtype: String? = nil,
        transaction: SignedTransactionPayload? = nil,
        signedRenewalInfo: String? = nil,
        status: Int? = nil,
        environment: String? = nil,
        consumptionRequestReason: String? = nil,
        notificationUUID: String? = nil,
        signedDate: Int64? = nil,
        bundleId: String? = nil,
        appAppleId: Int64? = nil,
        url: String? = nil,
        deliver: Bool? = nil,
        appTransactionId: String? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.transaction = transaction
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.environment = environment
        self.consumptionRequestReason = consumptionRequestReason
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.url = url
        self.deliver = deliver
        self.appTransactionId = appTransactionId
    }
}
