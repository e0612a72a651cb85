import Foundation

/// A verified notification from a store, as the intake (or the catch-up) records it: one row of
/// `iap.store_notifications`. Everything in it was checked before it was built; nothing from a forged request
/// ever becomes one.
package struct StoreNotification: Sendable, Equatable {
    /// Where a notification came from: `iap.store_notifications.source`.
    package enum Source: String, Sendable, CaseIterable {
        /// The store pushed it to the intake.
        case push
        /// The catch-up found it in the store's notification history.
        case history
    }

    /// The store that sent it.
    package var store: Store
    /// The store's id of the notification (Apple's `notificationUUID`, Pub/Sub's `messageId`): unique per store.
    package var notificationID: String
    /// The store's type (`REFUND`, `CONSUMPTION_REQUEST`, `TEST`, …).
    package var type: String
    /// The store's subtype, if any.
    package var subtype: String?
    /// The transaction it is about, if any (Apple's `transactionId`; Google's ledger id).
    package var transactionID: String?
    /// That transaction's original id, if any.
    package var originalTransactionID: String?
    /// The environment it came from, if it says (Apple's `Production` or `Sandbox`).
    package var environment: StoreEnvironment?
    /// When the store signed it (Apple's `signedDate`; Google's `publishTime`).
    package var signedAt: Date?
    /// Push or history.
    package var source: Source
    /// The verified payload as JSON text: Apple's `{"notification": <decoded payload>, "transaction": <decoded
    /// nested transaction, when there is one>}`; Google's `{"message": <Pub/Sub message without its data>,
    /// "notification": <the decoded data>}`.
    package var payload: String
    /// True when processing needs the store's answer first (`iap.store_notifications.awaiting_lookup`): the
    /// lookup worker asks and adds it to the payload.
    package var awaitingLookup: Bool

    /// Creates a record from verified values.
    package init(
        store: Store,
        notificationID: String,
        type: String,
        subtype: String? = nil,
        transactionID: String? = nil,
        originalTransactionID: String? = nil,
        environment: StoreEnvironment? = nil,
        signedAt: Date? = nil,
        source: Source,
        payload: String,
        awaitingLookup: Bool = false
    ) {
        self.store = store
        self.notificationID = notificationID
        self.type = type
        self.subtype = subtype
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.environment = environment
        self.signedAt = signedAt
        self.source = source
        self.payload = payload
        self.awaitingLookup = awaitingLookup
    }
}
