import Foundation
import ReceiptdCore

/// The stand-in's Google Play subscriptions: sold with periods of seconds, changed by the test or the demo (renewed,
/// failed into grace and hold, recovered, paused and resumed, cancelled, restarted, expired, revoked, a pending
/// purchase paid or cancelled, replaced, a prepaid plan topped up), each change optionally pushed as its real-time
/// notification, and served by `GET …/purchases/subscriptionsv2/tokens/{token}` (bearer, package, then the
/// subscription; Google's 404 for a token the stand-in did not sell) and
/// `POST …/purchases/subscriptions/{productId}/tokens/{token}:acknowledge` (bearer, package, body, a pending
/// failure from ``failFinalizations(_:status:)``, the token and product, then the state: a pending subscription is
/// refused). productsv2 answers a subscription's token 404, as for any token it does not know.
extension GooglePlayStandIn {
    /// Sells the subscription `sale` describes now; its purchase token, as the app would hand it to the game.
    package func subscribe(_ sale: GoogleSubscriptionSale) -> String {
        subscriptionBook.subscribe(sale, now: Self.nowMilliseconds())
    }

    /// Applies `change` to the subscription of `token` now (``GoogleSubscriptionChange/revoke`` also voids its
    /// latest period) and, with `notify`, pushes its real-time notification
    /// there (with a token for `audience`, default `notify`); returns the order of its latest paid period, or nil
    /// for an unknown token.
    @discardableResult
    package func changeSubscription(
        _ change: GoogleSubscriptionChange,
        _ token: String,
        notify: String? = nil,
        audience: String? = nil
    ) async throws -> String? {
        guard let changed = subscriptionBook.change(change, of: token, now: Self.nowMilliseconds()) else { return nil }
        // Revoking refunds the current period: `voidedpurchases.list` (with `type=1`) lists it from now on.
        if change == .revoke { void(token: token, orderID: changed.latestOrderID) }
        if let notify {
            _ = try await push(
                .subscription(
                    token: token,
                    productID: changed.sale.productID,
                    type: change.notificationType,
                    packageName: packageName
                ),
                to: notify,
                audience: audience
            )
        }
        return changed.latestOrderID
    }

    /// Replaces the subscription of `token` with one of `productID` at once (an upgrade or downgrade): the new
    /// purchase has a token and a first order of its own, and names `token` as its `linkedPurchaseToken`, as Google
    /// does; with `notify`, its `SUBSCRIPTION_PURCHASED` is pushed there. The new token, nil for an unknown one.
    package func replaceSubscription(
        _ token: String,
        with productID: String,
        notify: String? = nil,
        audience: String? = nil
    ) async throws -> String? {
        guard let replacement = subscriptionBook.replace(token, with: productID, now: Self.nowMilliseconds()) else {
            return nil
        }
        if let notify { _ = try await pushSubscriptionPurchased(replacement, to: notify, audience: audience) }
        return replacement
    }

    /// Tops up the prepaid plan of `token`: a new purchase of the same product with a first order of its own, naming
    /// `token` as its `linkedPurchaseToken`, whose period starts when the old one's ends; with `notify`, its
    /// `SUBSCRIPTION_PURCHASED` is pushed there. The new token, nil for an unknown one.
    package func topUpSubscription(
        _ token: String,
        notify: String? = nil,
        audience: String? = nil
    ) async throws
        -> String?
    {
        guard let product = subscriptionBook.subscription(token)?.sale.productID,
            let topUp = subscriptionBook.replace(token, with: product, extending: true, now: Self.nowMilliseconds())
        else { return nil }
        if let notify { _ = try await pushSubscriptionPurchased(topUp, to: notify, audience: audience) }
        return topUp
    }

    /// Pushes `SUBSCRIPTION_PURCHASED` (4) of `token`'s subscription to `url` (with a token for `audience`), as
    /// Google does when it is bought; returns what `url` answered.
    package func pushSubscriptionPurchased(
        _ token: String,
        to url: String,
        audience: String? = nil
    ) async throws -> Int? {
        guard let subscription = subscriptionBook.subscription(token) else { return nil }
        return try await push(
            .subscription(token: token, productID: subscription.sale.productID, type: 4, packageName: packageName),
            to: url,
            audience: audience
        )
    }

    /// The order of the latest period the subscription of `token` paid, nil for an unknown token.
    package func latestSubscriptionOrder(_ token: String) -> String? {
        subscriptionBook.subscription(token)?.latestOrderID
    }

    /// The orders of every period the subscription of `token` paid, oldest first, and when its current period
    /// ends; nil for an unknown token.
    package func subscriptionPeriods(_ token: String) -> (orders: [String], expiry: Date)? {
        subscriptionBook.subscription(token).map {
            ($0.orderIDs, Date(timeIntervalSince1970: Double($0.expiryMilliseconds) / 1000))
        }
    }

    /// Whether the subscription of `token` was acknowledged.
    package func subscriptionAcknowledged(_ token: String) -> Bool {
        subscriptionBook.subscription(token)?.acknowledged ?? false
    }

    /// `purchases.subscriptionsv2.get`.
    func subscription(package: String, token: String, authorization: String?) -> GooglePlayAnswer {
        let bearerFailure = ledger.bearerFailure(authorization)
        let answer: GooglePlayAnswer =
            if bearerFailure != nil {
                .unauthenticated
            } else if package != configuration.packageName {
                .permissionDenied
            } else if let outage = ledger.lookupOutage {
                .scripted(outage)
            } else if let subscription = subscriptionBook.subscription(token) {
                GooglePlayAnswer(status: 200, body: Self.json(subscription.answer()))
            } else {
                .tokenNotFound
            }
        ledger.record(
            RecordedGooglePurchaseQuery(
                token: token,
                productID: "subscriptionsv2",
                httpStatus: answer.closeConnection ? 0 : answer.status,
                bearerFailure: bearerFailure,
                receivedAt: Date()
            )
        )
        return answer
    }

    /// `purchases.subscriptions.acknowledge`.
    func acknowledgeSubscription(
        package: String,
        productID: String,
        token: String,
        authorization: String?,
        body: String
    ) -> GooglePlayAnswer {
        if let refusal = finalizationRefusal(
            .acknowledgeSubscription,
            package: package,
            productID: productID,
            token: token,
            authorization: authorization,
            body: body
        ) {
            return refusal
        }
        let subscription = subscriptionBook.subscription(token)
        return ledger.finalize(token, productID: productID, action: .acknowledgeSubscription) { _, failure in
            if let failure { return .scripted(failure) }
            guard let subscription else { return .tokenNotFound }
            guard subscription.sale.productID == productID else { return .invalidValue }
            guard subscription.state != "SUBSCRIPTION_STATE_PENDING",
                subscription.state != "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
            else { return .failedPrecondition }
            _ = subscriptionBook.acknowledge(token)
            return GooglePlayAnswer(status: 200, body: "{}")
        }
    }

    private static func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    private static func json(_ object: [String: Any]) -> String {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self)
    }
}
