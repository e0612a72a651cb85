import Foundation

/// Transaction jobs: a signed transaction is verified offline; a transaction id is looked up with the App Store
/// Server API, whose answer is verified the same way.
struct TransactionVerifier: PurchaseVerifier {
    let signed: SignedTransactionVerifier
    /// `nil` when no Server API key is configured: transaction ids then wait, using no attempt, with a clear error.
    let serverAPI: ServerAPIClient?
    /// Whether a looked-up transaction must carry its order's app account token to pay it.
    let tokenPolicy: TransactionIDTokenPolicy

    func attempt(_ job: ClaimedJob) async -> VerificationAttempt {
        let input = job.input
        // The claim routes jobs to the Server API's breaker by the same test: the two must never disagree.
        if StoreAPI.isTransactionID(input) {
            guard let serverAPI else { return Self.missingCredentials(for: "a transaction id") }
            var attempt = await Self.lookup(input, with: serverAPI, signed: signed)
            // Apple vouches for the purchase, not for who sent its id: only the order's token ties the two.
            if tokenPolicy == .reject, case .verified(var verified) = attempt.verdict {
                for index in verified.purchases.indices { verified.purchases[index].requiresOrderToken = true }
                attempt.verdict = .verified(verified)
            }
            return attempt
        }
        do {
            let transaction = try await signed.verify(input)
            return VerificationAttempt(verdict: Self.verdict(for: transaction), calledStore: false)
        } catch {
            return VerificationAttempt(verdict: .reject(reason: error.description), calledStore: false)
        }
    }

    /// The attempt of a job that needs the App Store Server API when no key is configured: it waits, using up no
    /// attempt, with a reason that says what to set. `needing` names what needs it.
    static func missingCredentials(for needing: String) -> VerificationAttempt {
        StoreNotConfigured.attempt(
            "App Store Server API",
            remedy: "set APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_FILE (\(needing) needs it)"
        )
    }

    /// A verified transaction as purchases the outcome rules take; an environment the App Store does not sign
    /// (Xcode, local testing) pays nothing.
    static func verdict(for transaction: SignedTransaction) -> Verdict {
        guard let environment = StoreEnvironment(rawValue: transaction.environment) else {
            return .reject(
                reason: "signed transaction environment is \(transaction.environment), not Production or Sandbox"
            )
        }
        return .verified(
            VerifiedPurchases(
                purchases: [transaction.purchase],
                environment: environment,
                bundleID: transaction.bundleID
            )
        )
    }
}
