/// A store API whose health the daemon keeps apart from the others: one failing pauses only the jobs that need it.
package enum StoreAPI: String, Sendable, Codable, CaseIterable, Comparable {
    /// Apple's verifyReceipt endpoint.
    case verifyReceipt = "verify_receipt"
    /// The App Store Server API (transaction ids; receipts under `RECEIPTD_RECEIPT_VERIFIER=server_api`).
    case serverAPI = "server_api"
    /// Google Play's Android Publisher API.
    case googlePlay = "google_play"

    /// The store it belongs to (the `store` label beside the `api` one).
    package var store: Store {
        switch self {
        case .verifyReceipt, .serverAPI: .apple
        case .googlePlay: .google
        }
    }

    /// The API a job of `kind` with `input` calls, with receipts verified the `receipts` way; `nil` for a signed
    /// transaction, which is verified offline and so is never paused.
    package static func needed(by kind: JobKind, input: String, receipts: ReceiptVerifierChoice) -> StoreAPI? {
        switch kind {
        case .receipt: receipts == .serverAPI ? .serverAPI : .verifyReceipt
        case .transaction: isTransactionID(input) ? .serverAPI : nil
        case .googlePurchase: .googlePlay
        }
    }

    /// Whether a transaction job's input is a bare decimal transaction id (looked up), not a signed transaction.
    /// `TransactionVerifier` decides lookup or offline verification by it; the claim's `receipt_data ~ '^[0-9]+$'`
    /// says it in SQL.
    static func isTransactionID(_ input: String) -> Bool {
        !input.isEmpty && input.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Orders by declaration, so lists of APIs read the same everywhere.
    package static func < (lhs: StoreAPI, rhs: StoreAPI) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
