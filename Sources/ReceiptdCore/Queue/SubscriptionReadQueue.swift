import Foundation

/// One subscription due to be read again from its store (`iap.subscriptions.read_due_at`), as a daemon claimed it.
package struct OwedSubscriptionRead: Sendable, Equatable {
    /// `apple:<originalTransactionId>`.
    package var subscriptionID: String
    /// The id the store's endpoint takes (Apple's original transaction id).
    package var originalTransactionID: String
    /// Where the subscription was bought.
    package var environment: StoreEnvironment
    /// Tries so far, this one included.
    package var attempts: Int
}

/// One subscription of a read's answer: the store's latest signed transaction of it (verified), and what it says of
/// the subscription now (nil for a transaction an upgrade replaced).
package struct SubscriptionReadItem: Sendable {
    /// The latest transaction, verified.
    package var transaction: SignedTransaction
    /// The same, as the store signed it: a period the ledger lacks is enqueued with it.
    package var signedTransaction: String
    /// The subscription now.
    package var snapshot: SubscriptionSnapshot?

    /// Creates an item.
    package init(transaction: SignedTransaction, signedTransaction: String, snapshot: SubscriptionSnapshot?) {
        self.transaction = transaction
        self.signedTransaction = signedTransaction
        self.snapshot = snapshot
    }
}

/// The subscriptions due a re-read, as `SubscriptionReader` works them off: part of the queue seam.
package protocol SubscriptionReadQueue: Sendable {
    /// Claims one due subscription no other daemon holds, for `lease`, counting the try; nil when none is due.
    func claimSubscriptionRead(lease: Duration) async throws -> OwedSubscriptionRead?
    /// The transactions among `transactionIDs` the ledger lacks and no renewal order waits for.
    func periodsLacking(_ transactionIDs: [String]) async throws -> Set<String>
    /// Writes what the store said (each subscription's news, each period the ledger lacks enqueued as its own
    /// order, `earlierPeriods` first: periods between the ledger's and the latest, found in the history) and when the
    /// subscription is next read, releasing it; returns how many periods were enqueued.
    func recordSubscriptionRead(
        _ owed: OwedSubscriptionRead,
        items: [SubscriptionReadItem],
        earlierPeriods: [SubscriptionReadItem]
    ) async throws -> Int
    /// A transient failure (or no Server API slot free, `counted` false): due again after `delay`.
    func retrySubscriptionRead(_ owed: OwedSubscriptionRead, after delay: Duration, error: String?) async throws
    /// The store refused the read for good: not read again until new news asks, with why.
    func failSubscriptionRead(_ owed: OwedSubscriptionRead, error: String) async throws
    /// Subscriptions by state and overdue re-reads.
    func subscriptionFigures() async throws -> SubscriptionFigures
}
