import Foundation

/// One purchase a store vouched for, reduced to what delivery needs: the store-neutral value the outcome
/// rules take, whether it came from a receipt's `in_app` / `latest_receipt_info` or a signed transaction.
package struct VerifiedPurchase: Sendable, Equatable {
    /// The ledger id: Apple's `transaction_id` / `transactionId` (decimal; forged ones have been seen as UUIDs), or
    /// Google's (`GoogleLedgerID`).
    package var transactionID: String
    /// `original_transaction_id`, or the transaction's own id when absent: the purchase a restore or renewal goes back to.
    package var originalTransactionID: String
    /// `product_id`.
    package var productID: String
    /// `quantity`, 1 when absent; `nil` when present but not a positive integer that fits the ledger.
    package var quantity: Int?
    /// `purchase_date_ms` in milliseconds since 1970; `nil` when absent, unreadable or outside years 1970–9999.
    package var purchaseDateMilliseconds: Int64?
    /// True when the entry carries `cancellation_date` or `cancellation_date_ms`, or a signed transaction a
    /// `revocationDate` (refunded or revoked).
    package var isCancelled: Bool
    /// The `appAccountToken` the app attached to the purchase, if any: the account that started it.
    package var appAccountToken: UUID?
    /// Google Play's `obfuscatedExternalAccountId`, if the app set one: the account that started it.
    package var accountID: String?
    /// The store that vouched for it.
    package var store: Store = .apple
    /// Fields in which two copies of this transaction in one answer disagree; such a transaction pays nothing.
    package var conflictingFields: [String] = []
    /// True for a transaction looked up by its id alone (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=reject`): anyone
    /// can send an id, so it pays only an order whose app account token it carries, never one without a token.
    package var requiresOrderToken = false
    /// Kind, ownership, price and offer, where the store says them.
    package var details = PurchaseDetails()
    /// Units the store reports refunded while the purchase stands (Google's `quantity` less `refundableQuantity`):
    /// the ledger row revokes them as the voided purchases poll would.
    package var refundedQuantity = 0
    /// For an auto-renewable's period: the subscription as the transaction says it is, which the ledger row
    /// names (its `subscription_id`, and the period from the purchase date to `expiresAt`).
    package var subscription: SubscriptionSnapshot?
    /// True for a subscription period the store calls a renewal (Apple's `transactionReason` `RENEWAL`): it pays its
    /// own renewal order alone, whoever presents it, never a checkout.
    package var isRenewal = false

    /// Creates a transaction.
    package init(
        transactionID: String,
        originalTransactionID: String? = nil,
        productID: String,
        quantity: Int? = 1,
        purchaseDateMilliseconds: Int64?,
        isCancelled: Bool = false,
        appAccountToken: UUID? = nil,
        accountID: String? = nil,
        store: Store = .apple
    ) {
        self.appAccountToken = appAccountToken
        self.accountID = accountID
        self.store = store
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMilliseconds = purchaseDateMilliseconds
        self.isCancelled = isCancelled
    }

    /// True when the id has the form of a real one: decimal digits for the App Store; Google's ids (an `orderId`
    /// or a token's digest) only need to be there.
    package var hasGenuineID: Bool {
        switch store {
        case .apple:
            !transactionID.isEmpty
                && transactionID.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        case .google: !transactionID.isEmpty
        }
    }

    /// Folds another copy of the same transaction into this one, as Apple may list it in both `in_app` and
    /// `latest_receipt_info`: a refund in either copy counts, and copies that disagree make it pay nothing,
    /// whichever comes first.
    mutating func merge(_ copy: VerifiedPurchase) {
        isCancelled = isCancelled || copy.isCancelled
        subscription = subscription ?? copy.subscription
        let differences: [(String, Bool)] = [
            ("original_transaction_id", originalTransactionID != copy.originalTransactionID),
            ("product_id", productID != copy.productID),
            ("quantity", quantity != copy.quantity),
            ("purchase_date_ms", purchaseDateMilliseconds != copy.purchaseDateMilliseconds),
            ("app_account_token", appAccountToken != copy.appAccountToken),
        ]
        for (field, differs) in differences where differs && !conflictingFields.contains(field) {
            conflictingFields.append(field)
        }
    }
}
