import Foundation

extension ReceiptHistoryVerifier {
    /// Get Transaction History v2's page (`HistoryResponse`).
    private struct HistoryAnswer: Decodable {
        var revision: String?
        var hasMore: Bool
        var bundleId: String?
        var signedTransactions: [String]
    }

    /// Every transaction of the customer `id` belongs to, oldest first, read page by page in the environment that
    /// knows `id`; each page is one paced request and every transaction is verified. `fallbackBundleID` names the
    /// app when the history holds no transaction.
    static func history(
        _ id: String,
        fallbackBundleID: String?,
        with serverAPI: ServerAPIClient,
        signed: SignedTransactionVerifier
    ) async -> VerificationAttempt {
        var outcome = await serverAPI.inEitherEnvironment(
            id,
            .transactionHistory,
            path: ServerAPIClient.historyPath(id, revision: nil)
        )
        var purchases: [VerifiedPurchase] = []
        var positions: [String: Int] = [:]
        var bundleID: String?
        var pages = 1
        while true {
            guard case .found(let body) = outcome.answer, let environment = outcome.environment else {
                return outcome.attempt()
            }
            guard let page = try? JSONDecoder().decode(HistoryAnswer.self, from: body) else {
                return outcome.garbled("200 without signedTransactions and hasMore")
            }
            for jws in page.signedTransactions {
                let transaction: SignedTransaction
                do {
                    transaction = try await signed.verify(jws)
                } catch {
                    return outcome.attempt(.reject(reason: "Server API history: \(error)"))
                }
                // One history is one app in one environment; anything else is not an answer to trust.
                guard transaction.environment == environment.rawValue else {
                    return outcome.attempt(
                        .reject(
                            reason: "\(environment.rawValue) history holds a \(transaction.environment) transaction"
                        )
                    )
                }
                guard bundleID == nil || bundleID == transaction.bundleID else {
                    return outcome.attempt(
                        .reject(reason: "history mixes bundles \(bundleID!) and \(transaction.bundleID)")
                    )
                }
                bundleID = transaction.bundleID
                // A transaction repeated across pages is still one purchase.
                if let position = positions[transaction.transactionID] {
                    purchases[position].merge(transaction.purchase)
                } else {
                    positions[transaction.transactionID] = purchases.count
                    purchases.append(transaction.purchase)
                }
            }
            guard page.hasMore else {
                return outcome.attempt(
                    .verified(
                        VerifiedPurchases(
                            purchases: purchases,
                            environment: environment,
                            bundleID: bundleID ?? page.bundleId ?? fallbackBundleID
                        )
                    )
                )
            }
            guard let revision = page.revision, !revision.isEmpty else {
                return outcome.garbled("hasMore without a revision")
            }
            guard pages < ServerAPIClient.historyPageLimit else {
                return outcome.garbled("history of \(id) has more than \(ServerAPIClient.historyPageLimit) pages")
            }
            pages += 1
            outcome = await serverAPI.get(
                environment,
                .transactionHistory,
                path: ServerAPIClient.historyPath(id, revision: revision)
            )
        }
    }
}
