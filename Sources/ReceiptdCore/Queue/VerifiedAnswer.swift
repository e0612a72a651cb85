import Foundation

/// One verified answer waiting to be settled.
package struct VerifiedAnswer: Sendable {
    /// The job the store's answer belongs to.
    package var job: ClaimedJob
    /// The answer's transactions, each once (`AppleVerifyResponse.allTransactions`, merged once for the log, the
    /// ledger reads and the plan).
    package var transactions: [VerifiedPurchase]
    /// The environment that gave it.
    package var environment: StoreEnvironment
    /// The attempt, written with the settle.
    package var attempt: AttemptRecord
    /// The store that gave it.
    package var store: Store = .apple
    /// For a Google purchase: the acknowledgement owed once it is delivered.
    package var finalization: GoogleFinalization? = nil
}

extension VerifiedAnswer {
    /// The answer with the purchases in `revoked` marked cancelled, whatever the store's input said.
    func revoking(_ revoked: Set<RevokedTransactionKey>) -> VerifiedAnswer {
        var answer = self
        answer.transactions = transactions.map { purchase in
            var purchase = purchase
            if revoked.contains(RevokedTransactionKey(store: purchase.store, transactionID: purchase.transactionID)) {
                purchase.isCancelled = true
            }
            return purchase
        }
        return answer
    }

    /// The answer with each Google subscription that replaced a token (`linkedPurchaseToken`) continuing the
    /// subscription `continued` maps its own token to (once it took that subscription over), else the replaced
    /// token: its periods and news are that subscription's.
    func continuing(_ continued: [String: String]) -> VerifiedAnswer {
        var answer = self
        answer.transactions = transactions.map { purchase in
            var purchase = purchase
            if let snapshot = purchase.subscription, let replaced = snapshot.replacesToken,
                let subscription = snapshot.purchaseToken.flatMap({ continued[$0] }) ?? continued[replaced]
            {
                purchase.subscription?.subscriptionID = subscription
            }
            return purchase
        }
        return answer
    }
}
