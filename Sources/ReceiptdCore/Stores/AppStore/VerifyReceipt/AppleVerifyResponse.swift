/// The parts of a verifyReceipt answer that receiptd acts on.
package struct AppleVerifyResponse: Sendable, Equatable {
    /// The receipt part of an answer.
    package struct Receipt: Sendable, Equatable {
        /// `receipt.bundle_id`.
        package var bundleID: String?
        /// `receipt.in_app`; `nil` when absent, which counts the same as empty.
        package var inApp: [VerifiedPurchase]?

        /// Creates a receipt.
        package init(bundleID: String?, inApp: [VerifiedPurchase]?) {
            self.bundleID = bundleID
            self.inApp = inApp
        }
    }

    /// `status`: 0 is valid, everything else an error or a redirect.
    package var status: Int
    /// `environment` as Apple wrote it, if it did.
    package var environment: String?
    /// `is_retryable` (or the older `is-retryable`), when present.
    package var isRetryable: Bool?
    /// `receipt`, when present.
    package var receipt: Receipt?
    /// `latest_receipt_info`, when present.
    package var latestReceiptInfo: [VerifiedPurchase]?

    /// Creates a response.
    package init(
        status: Int,
        environment: String? = nil,
        isRetryable: Bool? = nil,
        receipt: Receipt? = nil,
        latestReceiptInfo: [VerifiedPurchase]? = nil
    ) {
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.latestReceiptInfo = latestReceiptInfo
    }

    /// `in_app` and `latest_receipt_info` together, each `transaction_id` once, its copies merged
    /// (see `VerifiedPurchase.merge`), in the order each id first appears.
    package var allTransactions: [VerifiedPurchase] {
        var position: [String: Int] = [:]
        var merged: [VerifiedPurchase] = []
        for entry in (receipt?.inApp ?? []) + (latestReceiptInfo ?? []) {
            if let index = position[entry.transactionID] {
                merged[index].merge(entry)
            } else {
                position[entry.transactionID] = merged.count
                merged.append(entry)
            }
        }
        return merged
    }
}
