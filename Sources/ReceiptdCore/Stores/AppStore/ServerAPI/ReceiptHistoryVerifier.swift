/// Receipt jobs through the App Store Server API instead of the deprecated verifyReceipt
/// (`RECEIPTD_RECEIPT_VERIFIER=server_api`): the receipt, once its signature verifies to Apple's receipt root,
/// names a transaction, and that customer's transaction history, signed by Apple, is what the outcome rules get.
/// The game keeps sending the same receipts.
struct ReceiptHistoryVerifier: PurchaseVerifier {
    /// `nil` when no Server API key is configured (settings refuse that at start): jobs then wait with a clear error.
    let serverAPI: ServerAPIClient?
    /// Verifies each transaction of the history Apple sends.
    let signed: SignedTransactionVerifier
    /// Checks the receipt's PKCS#7 signature before anything is looked up: an id in a receipt nobody signed
    /// would name any player's purchase.
    let signatures: ReceiptSignatureVerifier

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        let receipt: AppReceipt
        do {
            receipt = try AppReceipt(base64: job.input)
            try await signatures.verify(receipt)
        } catch let error as AppReceipt.FormatError {
            return VerificationAttempt(verdict: .reject(reason: error.description), calledStore: false)
        } catch {
            return VerificationAttempt(verdict: .reject(reason: "\(error)"), calledStore: false)
        }
        guard let id = receipt.firstTransactionID else {
            // Nothing to ask Apple about: the receipt's own word that it holds no purchase pays nothing.
            return VerificationAttempt(
                verdict: .verified(
                    VerifiedPurchases(purchases: [], environment: .production, bundleID: receipt.bundleID)
                ),
                calledStore: false
            )
        }
        guard id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return VerificationAttempt(
                verdict: .reject(reason: "receipt's transaction id is not an App Store transaction id"),
                calledStore: false
            )
        }
        guard let serverAPI else {
            return TransactionVerifier.missingCredentials(for: "RECEIPTD_RECEIPT_VERIFIER=server_api")
        }
        return await Self.history(id, fallbackBundleID: receipt.bundleID, with: serverAPI, signed: signed)
    }
}
