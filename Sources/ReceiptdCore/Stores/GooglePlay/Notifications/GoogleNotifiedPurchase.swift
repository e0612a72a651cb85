/// A purchase a `ONE_TIME_PRODUCT_PURCHASED` notification reported, as the lookup's productsv2 answer
/// describes it: what processing needs to settle it to an order or record it as unclaimed.
package struct GoogleNotifiedPurchase: Sendable, Equatable {
    /// Whether Google has the money yet.
    package enum State: String, Sendable, Equatable {
        /// Paid: it can be delivered.
        case purchased
        /// Waiting for payment (cash, bank transfer): nothing is delivered yet.
        case pending
    }

    /// The purchase token.
    package var token: String
    /// The product (`sku`).
    package var productID: String
    /// Its ledger id (`GoogleLedgerID`).
    package var ledgerID: String
    /// Purchased or pending.
    package var state: State
    /// `obfuscatedExternalAccountId`: the account the app bound the purchase to.
    package var accountID: String?
    /// Units bought.
    package var quantity: Int
    /// `purchaseTimeMillis`.
    package var purchaseTimeMilliseconds: Int64?

    /// Creates a purchase from decoded values.
    package init(
        token: String,
        productID: String,
        ledgerID: String,
        state: State,
        accountID: String?,
        quantity: Int,
        purchaseTimeMilliseconds: Int64?
    ) {
        self.token = token
        self.productID = productID
        self.ledgerID = ledgerID
        self.state = state
        self.accountID = accountID
        self.quantity = quantity
        self.purchaseTimeMilliseconds = purchaseTimeMilliseconds
    }
}
