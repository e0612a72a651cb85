import Foundation
import Synchronization

/// The stand-in's auto-renewable subscriptions, by original transaction id, shared by every connection: what
/// Get All Subscription Statuses answers from, and the script its next calls follow.
final class SubscriptionBook: Sendable {
    private struct State {
        var subscriptions: [String: StandInSubscription] = [:]
        /// The original transaction id of each transaction, for a call that names a later one.
        var originals: [String: String] = [:]
        var script: [ScriptStep] = []
    }

    private let state = Mutex(State())

    /// Records a first purchase; its first transaction.
    func subscribe(_ purchase: SubscriptionPurchase, now: Int64) -> SignedTransactionPayload {
        state.withLock { state in
            let subscription = StandInSubscription(purchase, now: now)
            state.subscriptions[purchase.transactionID] = subscription
            state.originals[purchase.transactionID] = purchase.transactionID
            return subscription.transactions[0]
        }
    }

    /// Serves each of `renewed` (the current period of a subscription sold elsewhere) by its original transaction id
    /// and its own, replacing what they named.
    func register(renewed: [SignedTransactionPayload]) {
        state.withLock { state in
            for transaction in renewed {
                let original = transaction.originalTransactionId
                state.subscriptions[original] = StandInSubscription(renewed: transaction)
                state.originals[original] = original
                state.originals[transaction.transactionId] = original
            }
        }
    }

    /// Applies `change` to the subscription `original`; its news and renewal info, nil for an unknown one.
    func change(
        _ change: SubscriptionChange,
        of original: String,
        now: Int64
    ) -> (news: StandInSubscription.News, renewal: RenewalInfoPayload, status: Int)? {
        state.withLock { state in
            guard var subscription = state.subscriptions[original] else { return nil }
            let news = subscription.apply(change, now: now)
            state.subscriptions[original] = subscription
            for transaction in subscription.transactions { state.originals[transaction.transactionId] = original }
            return (news, subscription.renewalInfo(now: now), subscription.status)
        }
    }

    /// Every transaction of the subscription `original`, oldest first.
    func transactions(of original: String) -> [SignedTransactionPayload] {
        state.withLock { $0.subscriptions[original]?.transactions ?? [] }
    }

    /// Every transaction of the subscription `original` and its renewal info at `now`; nil for an unknown one.
    func receiptParts(
        of original: String,
        now: Int64
    ) -> (transactions: [SignedTransactionPayload], renewal: RenewalInfoPayload)? {
        state.withLock { state in
            state.subscriptions[original].map { ($0.transactions, $0.renewalInfo(now: now)) }
        }
    }

    /// The steps the next Get All Subscription Statuses calls get, one a call.
    func script(_ steps: [ScriptStep]) {
        state.withLock { $0.script = steps }
    }

    /// The next script step, if any, taken.
    func nextStep() -> ScriptStep? {
        state.withLock { state in state.script.isEmpty ? nil : state.script.removeFirst() }
    }

    /// The subscription (current transaction, renewal info, status) a call naming any of its transactions in
    /// `environment` reads; nil when there is none there.
    func status(
        for transactionID: String,
        environment: String,
        now: Int64
    ) -> (group: String?, current: SignedTransactionPayload, renewal: RenewalInfoPayload, status: Int)? {
        state.withLock { state in
            guard let original = state.originals[transactionID], let subscription = state.subscriptions[original],
                (subscription.current.environment == "Sandbox" ? "Sandbox" : "Production") == environment
            else { return nil }
            var current = subscription.current
            current.signedDate = now
            return (
                current.subscriptionGroupIdentifier, current, subscription.renewalInfo(now: now), subscription.status
            )
        }
    }
}
