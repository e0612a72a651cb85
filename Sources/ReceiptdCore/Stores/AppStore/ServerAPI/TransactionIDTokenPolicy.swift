/// Whether a bare transaction id sent through `iap.enqueue_transaction` may pay an order whose app account token
/// it does not carry (`RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN`). Anyone can send an id, and ids are short and close
/// to sequential: without the token, a guessed id would deliver another player's purchase.
package enum TransactionIDTokenPolicy: String, Sendable, CaseIterable {
    /// `reject` (the default): a looked-up transaction pays an order only when its `appAccountToken` equals the
    /// order's `app_account_token`; otherwise the order is `unmatched` and the purchase an unclaimed payment.
    case reject
    /// `accept`: the game accepts the risk, and a looked-up transaction pays as a signed one does.
    case accept
}
