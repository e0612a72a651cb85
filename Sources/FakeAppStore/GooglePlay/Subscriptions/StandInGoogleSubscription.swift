import Foundation

/// One Google Play subscription the stand-in sold: its periods (each an order, `GPA.…` then `…..0`, `…..1`), its
/// state and what `purchases.subscriptionsv2.get` answers of it.
struct StandInGoogleSubscription: Sendable {
    var sale: GoogleSubscriptionSale
    /// The first order.
    var baseOrderID: String
    /// `startTime`.
    var startMilliseconds: Int64
    /// `lineItems[0].expiryTime`: the current period's end (the grace period's, while in it).
    var expiryMilliseconds: Int64
    /// Periods paid after the first.
    var renewals = 0
    /// `subscriptionState`.
    var state: String
    /// `autoRenewingPlan.autoRenewEnabled`.
    var autoRenew: Bool
    /// Acknowledged through `purchases.subscriptions.acknowledge`.
    var acknowledged = false
    /// `linkedPurchaseToken`: the token this subscription replaced.
    var linkedPurchaseToken: String?

    init(_ sale: GoogleSubscriptionSale, now: Int64) {
        self.sale = sale
        baseOrderID = sale.orderID ?? Self.orderID()
        startMilliseconds = now
        expiryMilliseconds = now + Int64(sale.periodSeconds * 1000)
        state = sale.pending ? "SUBSCRIPTION_STATE_PENDING" : "SUBSCRIPTION_STATE_ACTIVE"
        autoRenew = !sale.prepaid
    }

    /// A subscription sold elsewhere, renewed once more as `renewed` says (monthly, acknowledged).
    init(_ renewed: GoogleRenewedSubscription) {
        sale = GoogleSubscriptionSale(
            productID: renewed.productID,
            periodSeconds: 30 * 86_400,
            orderID: renewed.firstOrderID
        )
        baseOrderID = renewed.firstOrderID
        startMilliseconds = renewed.startMilliseconds
        expiryMilliseconds = renewed.expiryMilliseconds
        renewals = max(renewed.periodsBefore, 1)
        state = "SUBSCRIPTION_STATE_ACTIVE"
        autoRenew = true
        acknowledged = true
    }

    /// A made-up order id in Google's form, `GPA.dddd-dddd-dddd-ddddd`.
    static func orderID() -> String {
        func digits(_ count: Int) -> String { (0..<count).map { _ in String(Int.random(in: 0...9)) }.joined() }
        return "GPA.\(digits(4))-\(digits(4))-\(digits(4))-\(digits(5))"
    }

    /// The order of the latest period paid.
    var latestOrderID: String { renewals == 0 ? baseOrderID : "\(baseOrderID)..\(renewals - 1)" }

    /// The orders of every period paid, oldest first.
    var orderIDs: [String] { (0...renewals).map { $0 == 0 ? baseOrderID : "\(baseOrderID)..\($0 - 1)" } }

    /// Applies `change` at `now` (milliseconds).
    mutating func apply(_ change: GoogleSubscriptionChange, now: Int64) {
        let period = Int64(sale.periodSeconds * 1000)
        switch change {
        case .renew, .recover, .resume:
            renewals += 1
            expiryMilliseconds = max(now, expiryMilliseconds) + period
            state = "SUBSCRIPTION_STATE_ACTIVE"
            autoRenew = !sale.prepaid
        case .failRenewal(let grace):
            if let grace {
                state = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
                expiryMilliseconds = max(now, expiryMilliseconds) + Int64(grace * 1000)
            } else {
                state = "SUBSCRIPTION_STATE_ON_HOLD"
                expiryMilliseconds = min(now, expiryMilliseconds)
            }
        case .endGracePeriod:
            state = "SUBSCRIPTION_STATE_ON_HOLD"
            expiryMilliseconds = min(now, expiryMilliseconds)
        case .pause:
            state = "SUBSCRIPTION_STATE_PAUSED"
            expiryMilliseconds = min(now, expiryMilliseconds)
        case .cancel:
            state = "SUBSCRIPTION_STATE_CANCELED"
            autoRenew = false
        case .restart:
            state = "SUBSCRIPTION_STATE_ACTIVE"
            autoRenew = !sale.prepaid
        case .expire, .revoke:
            state = "SUBSCRIPTION_STATE_EXPIRED"
            autoRenew = false
            expiryMilliseconds = min(now, expiryMilliseconds)
        case .completePending:
            state = "SUBSCRIPTION_STATE_ACTIVE"
            startMilliseconds = now
            expiryMilliseconds = now + period
        case .cancelPending:
            state = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
            autoRenew = false
        }
    }

    /// The `SubscriptionPurchaseV2` body.
    func answer() -> [String: Any] {
        var line: [String: Any] = [
            "productId": sale.productID,
            "expiryTime": Self.rfc3339(expiryMilliseconds),
            "offerDetails": ["basePlanId": sale.basePlanID],
        ]
        if sale.prepaid {
            line["prepaidPlan"] = ["allowExtendAfterTime": Self.rfc3339(expiryMilliseconds)]
        } else {
            line["autoRenewingPlan"] = ["autoRenewEnabled": autoRenew]
        }
        let paid = state != "SUBSCRIPTION_STATE_PENDING" && state != "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
        if paid { line["latestSuccessfulOrderId"] = latestOrderID }
        var body: [String: Any] = [
            "kind": "androidpublisher#subscriptionPurchaseV2",
            "regionCode": "US",
            "startTime": Self.rfc3339(startMilliseconds),
            "subscriptionState": state,
            "acknowledgementState": acknowledged
                ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING",
            "lineItems": [line],
        ]
        if paid { body["latestOrderId"] = latestOrderID }
        if sale.testPurchase { body["testPurchase"] = [String: Any]() }
        if let linkedPurchaseToken { body["linkedPurchaseToken"] = linkedPurchaseToken }
        if let account = sale.accountID {
            body["externalAccountIdentifiers"] = ["obfuscatedExternalAccountId": account]
        }
        return body
    }

    private static func rfc3339(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
