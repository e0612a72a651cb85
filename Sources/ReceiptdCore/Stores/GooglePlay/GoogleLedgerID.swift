import Crypto
import Foundation

/// A Google purchase's `transaction_id` in the ledger, the one rule the verifier and the voided-purchases poll
/// share: its `orderId`, or for a test purchase, which has none, the SHA-256 of its token (64 hex digits, which
/// no `orderId` (`GPA.…`) or App Store id can be).
enum GoogleLedgerID {
    /// The ledger id of the purchase `token` names, whose `orderId` is `orderID` if Google gave one.
    static func of(orderID: String?, token: String) -> String {
        orderID.flatMap { $0.isEmpty ? nil : $0 }
            ?? SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
