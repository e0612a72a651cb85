import Foundation

/// The fields receiptd reads of a `purchases.subscriptionsv2.get` answer (`SubscriptionPurchaseV2`). Only
/// `subscriptionState` is required; a field that cannot be read is `nil`, so one odd field never stops a
/// subscription from being judged.
struct GoogleSubscriptionPurchase: Decodable, Sendable, Equatable {
    /// `subscriptionState`.
    enum State: String, Sendable, Equatable {
        /// Bought, not yet paid (cash, bank transfer).
        case pending = "SUBSCRIPTION_STATE_PENDING"
        /// Paid for the current period.
        case active = "SUBSCRIPTION_STATE_ACTIVE"
        /// Paused by the player.
        case paused = "SUBSCRIPTION_STATE_PAUSED"
        /// A renewal failed; the service goes on until the grace period ends.
        case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
        /// A renewal failed and the grace period ended: no service while Google retries.
        case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
        /// Cancelled: no renewal, the service lasts until `expiryTime`.
        case canceled = "SUBSCRIPTION_STATE_CANCELED"
        /// Ended.
        case expired = "SUBSCRIPTION_STATE_EXPIRED"
        /// The pending purchase was cancelled before it was paid: no subscription.
        case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
    }

    /// One `lineItems` entry: a product of the subscription and its current period.
    struct LineItem: Sendable, Equatable {
        /// `productId`.
        var productID: String
        /// `expiryTime`: the end of the current period (of the grace period while in it).
        var expiryMilliseconds: Int64?
        /// `autoRenewingPlan.autoRenewEnabled`; `nil` for a prepaid plan, which never renews by itself.
        var autoRenewEnabled: Bool?
        /// `prepaidPlan` is present: bought for a fixed time, extended by top-ups.
        var isPrepaid: Bool
        /// `offerDetails.basePlanId`.
        var basePlanID: String?
        /// `offerDetails.offerId`: only for a purchase made with an offer.
        var offerID: String?
        /// `latestSuccessfulOrderId`: the order of the latest period paid.
        var latestSuccessfulOrderID: String?
        /// `deferredItemReplacement.productId`: the product of the next period after a deferred replacement.
        var deferredProductID: String?
    }

    /// `subscriptionState`; `nil` for a state this release does not know.
    var state: State?
    /// `subscriptionState` as Google wrote it.
    var stateName: String
    /// `startTime`: when the subscription began.
    var startMilliseconds: Int64?
    /// `latestOrderId` (deprecated beside the line items' `latestSuccessfulOrderId`).
    var latestOrderID: String?
    /// `linkedPurchaseToken`: the token this one replaces (an upgrade, a downgrade, a resubscription before
    /// expiry, a prepaid plan's conversion or top-up).
    var linkedPurchaseToken: String?
    /// `acknowledgementState` is `ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED`.
    var acknowledged: Bool
    /// `testPurchase` is present: a license tester's subscription.
    var isTestPurchase: Bool
    /// `externalAccountIdentifiers.obfuscatedExternalAccountId`, when the app set one.
    var accountID: String?
    /// `lineItems`, in Google's order.
    var lineItems: [LineItem]

    enum CodingKeys: String, CodingKey {
        case subscriptionState, startTime, latestOrderId, linkedPurchaseToken, acknowledgementState, testPurchase
        case externalAccountIdentifiers, lineItems
    }

    private struct AccountIdentifiers: Decodable {
        var obfuscatedExternalAccountId: String?
    }

    private struct LineItemFields: Decodable {
        struct AutoRenewingPlan: Decodable { var autoRenewEnabled: Bool? }
        struct OfferDetails: Decodable {
            var basePlanId: String?
            var offerId: String?
        }
        struct DeferredReplacement: Decodable { var productId: String? }
        var productId: String?
        var expiryTime: String?
        var autoRenewingPlan: AutoRenewingPlan?
        var prepaidPlan: [String: FlexibleValue]?
        var offerDetails: OfferDetails?
        var latestSuccessfulOrderId: String?
        var deferredItemReplacement: DeferredReplacement?
    }

    /// Any JSON value, read and dropped: `prepaidPlan`'s contents are not needed, only that it is there.
    private struct FlexibleValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// Creates a purchase (for tests).
    init(
        state: State,
        startMilliseconds: Int64? = nil,
        latestOrderID: String? = nil,
        linkedPurchaseToken: String? = nil,
        acknowledged: Bool = false,
        isTestPurchase: Bool = false,
        accountID: String? = nil,
        lineItems: [LineItem]
    ) {
        self.state = state
        stateName = state.rawValue
        self.startMilliseconds = startMilliseconds
        self.latestOrderID = latestOrderID
        self.linkedPurchaseToken = linkedPurchaseToken
        self.acknowledged = acknowledged
        self.isTestPurchase = isTestPurchase
        self.accountID = accountID
        self.lineItems = lineItems
    }

    /// Reads an answer; throws only when `subscriptionState` is missing.
    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        stateName = try fields.decode(String.self, forKey: .subscriptionState)
        state = State(rawValue: stateName)
        func text(_ key: CodingKeys) -> String? {
            (try? fields.decodeIfPresent(String.self, forKey: key)).flatMap { $0.isEmpty ? nil : $0 }
        }
        startMilliseconds = text(.startTime).flatMap(RFC3339.milliseconds)
        latestOrderID = text(.latestOrderId)
        linkedPurchaseToken = text(.linkedPurchaseToken)
        acknowledged = text(.acknowledgementState) == "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
        isTestPurchase = fields.contains(.testPurchase)
        let identifiers = try? fields.decodeIfPresent(AccountIdentifiers.self, forKey: .externalAccountIdentifiers)
        accountID = identifiers?.obfuscatedExternalAccountId.flatMap { $0.isEmpty ? nil : $0 }
        let items = (try? fields.decodeIfPresent([LineItemFields].self, forKey: .lineItems)) ?? []
        lineItems = items.compactMap { item in
            guard let product = item.productId, !product.isEmpty else { return nil }
            let nonEmpty = { (text: String?) in text.flatMap { $0.isEmpty ? nil : $0 } }
            return LineItem(
                productID: product,
                expiryMilliseconds: item.expiryTime.flatMap(RFC3339.milliseconds),
                autoRenewEnabled: item.autoRenewingPlan.map { $0.autoRenewEnabled ?? false },
                isPrepaid: item.prepaidPlan != nil,
                basePlanID: nonEmpty(item.offerDetails?.basePlanId),
                offerID: nonEmpty(item.offerDetails?.offerId),
                latestSuccessfulOrderID: nonEmpty(item.latestSuccessfulOrderId),
                deferredProductID: nonEmpty(item.deferredItemReplacement?.productId)
            )
        }
    }

    /// The order of the latest period paid: the first line's `latestSuccessfulOrderId`, else `latestOrderId`.
    var latestPaidOrderID: String? { lineItems.first?.latestSuccessfulOrderID ?? latestOrderID }
}
