import Foundation

/// One Set App Account Token call owed to Apple (`iap.app_account_token_calls`), as a daemon claimed it.
package struct OwedAppAccountTokenCall: Sendable, Equatable {
    /// The assigned payment's ledger id, the row's key.
    package var transactionID: String
    /// The purchase's original transaction id: the one Apple's endpoint takes.
    package var originalTransactionID: String
    /// The order's token, which Apple is to record for the purchase.
    package var appAccountToken: UUID
    /// Where the purchase was made.
    package var environment: StoreEnvironment
    /// Tries so far, this one included.
    package var attempts: Int
}
