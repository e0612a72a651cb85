import Foundation

/// One subscription due to be read again from its store (`iap.subscriptions.read_due_at`), as a daemon claimed it.
package struct OwedSubscriptionRead: Sendable, Equatable {
    /// `apple:<originalTransactionId>` or `google:<first order id>`.
    package var subscriptionID: String
    /// The store that sold it.
    package var store: Store = .apple
    /// What follows the store's prefix: Apple's original transaction id, which its endpoint takes; Google's first
    /// order.
    package var originalTransactionID: String
    /// Google's purchase token, which its endpoint takes.
    package var purchaseToken: String? = nil
    /// The end of the latest period the row knows (`expires_at`), milliseconds since 1970.
    package var expiresAtMilliseconds: Int64? = nil
    /// Where the subscription was bought.
    package var environment: StoreEnvironment
    /// Tries so far, this one included.
    package var attempts: Int
    /// When the read was due (`read_due_at`), microseconds since 1970: where the daemon's next claim starts.
    package var dueAtMicroseconds: Int64? = nil
}

/// One subscription of a read's answer: its latest period as the store vouched for it, and what it says of the
/// subscription now (nil for a transaction an upgrade replaced).
package struct SubscriptionReadItem: Sendable {
    /// The period's ledger id: Apple's transaction id, Google's order id.
    package var transactionID: String
    /// The subscription's first transaction (Apple's original transaction id, Google's first order).
    package var originalTransactionID: String
    /// The period's product.
    package var productID: String
    /// When the period was bought, milliseconds since 1970.
    package var purchaseDateMilliseconds: Int64?
    /// Refunded or revoked: nothing to deliver.
    package var isRevoked: Bool
    /// What a renewal order's job verifies the period with: Apple's signed transaction, Google's purchase token.
    package var input: String
    /// The subscription now.
    package var snapshot: SubscriptionSnapshot?

    /// Creates an item.
    package init(
        transactionID: String,
        originalTransactionID: String,
        productID: String,
        purchaseDateMilliseconds: Int64?,
        isRevoked: Bool,
        input: String,
        snapshot: SubscriptionSnapshot?
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.isRevoked = isRevoked
        self.input = input
        self.snapshot = snapshot
    }

    /// The item of an App Store signed transaction (`signedTransaction`, as Apple signed it, verified).
    package init(transaction: SignedTransaction, signedTransaction: String, snapshot: SubscriptionSnapshot?) {
        self.init(
            transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            productID: transaction.productID,
            purchaseDateMilliseconds: transaction.purchaseDateMilliseconds,
            isRevoked: transaction.revocationDateMilliseconds != nil,
            input: signedTransaction,
            snapshot: snapshot
        )
    }
}

/// The subscriptions due a re-read, as `SubscriptionReader` works them off: part of the queue seam.
package protocol SubscriptionReadQueue: Sendable {
    /// Claims one due subscription of `stores` no other daemon holds, for `lease`, counting the try; nil when none
    /// is due (at or after `after`, microseconds since 1970, when given: see `SubscriptionReadCursor`).
    func claimSubscriptionRead(lease: Duration, stores: [Store], after: Int64?) async throws -> OwedSubscriptionRead?
    /// The transactions among `transactionIDs` the ledger lacks and no renewal order waits for.
    func periodsLacking(_ transactionIDs: [String]) async throws -> Set<String>
    /// The end of the latest period of `subscriptionID` the ledger holds that began before `milliseconds`; nil when
    /// it holds none.
    func ledgerPeriodEnd(of subscriptionID: String, before milliseconds: Int64) async throws -> Int64?
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
    /// The store refused the read for good, with why: read again after `retryAfter` and shown failing, until the
    /// store answers, news comes, or its entitlement ended over 60 days ago (then never again); true when it is read
    /// again.
    func failSubscriptionRead(_ owed: OwedSubscriptionRead, error: String, retryAfter: Duration) async throws -> Bool
    /// Subscriptions by state and overdue re-reads.
    func subscriptionFigures() async throws -> SubscriptionFigures
}
