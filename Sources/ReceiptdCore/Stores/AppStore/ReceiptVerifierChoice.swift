/// How receipt jobs are verified (`RECEIPTD_RECEIPT_VERIFIER`): the way off Apple's deprecated verifyReceipt
/// without a change to the game, which keeps sending app receipts.
package enum ReceiptVerifierChoice: String, Sendable, CaseIterable {
    /// `verify_receipt`: Apple's verifyReceipt endpoint, with the shared secret (the default).
    case verifyReceipt = "verify_receipt"
    /// `server_api`: the receipt's first transaction id, then that customer's Get Transaction History v2 from the
    /// App Store Server API; needs the App Store Connect key.
    case serverAPI = "server_api"
}
