import X509

/// How StoreKit 2 transactions are verified: the roots signed transactions must chain to, the App Store
/// Server API for transaction ids, and whether receipts go to it too (and the roots their signatures chain to).
package struct StoreKitConfiguration: Sendable {
    /// Roots a signed transaction's chain must end in (`APPLE_ROOT_CA_FILE`; Apple Root CA - G3 by default).
    package var trustedRoots: [Certificate] = [AppleRootCertificates.rootG3]
    /// Roots an app receipt's PKCS#7 signature must chain to under `server_api` (`APPLE_RECEIPT_ROOT_CA_FILE`;
    /// Apple Inc. Root by default).
    package var receiptRoots: [Certificate] = [AppleRootCertificates.appleIncRoot]
    /// The App Store Connect key; `nil` when not configured: transaction ids then cannot be looked up.
    package var credentials: ServerAPICredentials? = nil
    /// `APPLE_SERVER_API_URL`.
    package var serverAPIURL = "https://api.storekit.apple.com"
    /// `APPLE_SERVER_API_SANDBOX_URL`.
    package var serverAPISandboxURL = "https://api.storekit-sandbox.apple.com"
    /// Requests per second to the Server API for all daemons together (`APPLE_SERVER_API_RATE`).
    package var serverAPIRate = 50
    /// How receipt jobs are verified (`RECEIPTD_RECEIPT_VERIFIER`): verifyReceipt, or the Server API's transaction
    /// history, which needs `credentials`.
    package var receiptVerifier = ReceiptVerifierChoice.verifyReceipt
    /// Whether a transaction id looked up without the order's app account token may pay it
    /// (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN`; `reject` by default).
    package var transactionIDWithoutToken = TransactionIDTokenPolicy.reject
    /// The app's Apple ID (`APPLE_APP_ID`): when set, a notification's `data.appAppleId` must equal it.
    package var appAppleID: Int64? = nil

    /// How often one daemon asks Get Notification History for what the intake missed
    /// (`APPLE_NOTIFICATION_HISTORY_INTERVAL`; an hour by default).
    package var notificationHistoryInterval: Duration = .seconds(3600)

    /// Creates a configuration with the defaults above.
    package init() {}
}
