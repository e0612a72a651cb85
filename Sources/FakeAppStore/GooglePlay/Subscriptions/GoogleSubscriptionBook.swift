import Foundation
import Synchronization

/// The stand-in Google Play's subscriptions, by purchase token, shared by every connection.
final class GoogleSubscriptionBook: Sendable {
    private let subscriptions = Mutex([String: StandInGoogleSubscription]())

    /// Records a sale; its purchase token.
    func subscribe(_ sale: GoogleSubscriptionSale, now: Int64) -> String {
        let token = "subscription." + (0..<32).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        subscriptions.withLock { $0[token] = StandInGoogleSubscription(sale, now: now) }
        return token
    }

    /// Serves each of `renewed` by its token, as renewed once more (replacing what the token had).
    func register(_ renewed: [GoogleRenewedSubscription]) {
        subscriptions.withLock { subscriptions in
            subscriptions.reserveCapacity(subscriptions.count + renewed.count)
            for subscription in renewed { subscriptions[subscription.token] = StandInGoogleSubscription(subscription) }
        }
    }

    /// Applies `change` to the subscription of `token`; false for an unknown token.
    func change(_ change: GoogleSubscriptionChange, of token: String, now: Int64) -> StandInGoogleSubscription? {
        subscriptions.withLock { subscriptions in
            guard var subscription = subscriptions[token] else { return nil }
            subscription.apply(change, now: now)
            subscriptions[token] = subscription
            return subscription
        }
    }

    /// Replaces the subscription of `token` with a new purchase of `productID` (an upgrade or downgrade at once, or,
    /// `extending`, a prepaid plan's top-up whose period starts when the old one's ends): the old one ends now, the
    /// new one starts with a first order of its own and names the old token as `linkedPurchaseToken`. The new
    /// token, nil for an unknown one.
    func replace(_ token: String, with productID: String, extending: Bool = false, now: Int64) -> String? {
        let replacement = "subscription." + (0..<32).map { _ in String(UInt8.random(in: 0...15), radix: 16) }.joined()
        return subscriptions.withLock { subscriptions in
            guard var old = subscriptions[token] else { return nil }
            let remaining = extending ? max(0, old.expiryMilliseconds - now) : 0
            old.apply(.expire, now: now)
            subscriptions[token] = old
            var sale = old.sale
            sale.productID = productID
            sale.orderID = nil
            sale.pending = false
            var new = StandInGoogleSubscription(sale, now: now)
            new.linkedPurchaseToken = token
            new.expiryMilliseconds += remaining
            subscriptions[replacement] = new
            return replacement
        }
    }

    /// The subscription of `token`, if the stand-in sold it.
    func subscription(_ token: String) -> StandInGoogleSubscription? {
        subscriptions.withLock { $0[token] }
    }

    /// Marks the subscription of `token` acknowledged; its state before, nil for an unknown token.
    func acknowledge(_ token: String) -> StandInGoogleSubscription? {
        subscriptions.withLock { subscriptions in
            guard let before = subscriptions[token] else { return nil }
            subscriptions[token]?.acknowledged = true
            return before
        }
    }
}
