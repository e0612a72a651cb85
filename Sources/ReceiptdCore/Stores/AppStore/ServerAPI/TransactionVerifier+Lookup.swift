import Foundation

extension TransactionVerifier {
    /// Get Transaction Info's answer.
    private struct TransactionInfoAnswer: Decodable {
        var signedTransactionInfo: String
    }

    /// One lookup of transaction `id` through `serverAPI`: at most one request per environment, the signed answer
    /// verified like any signed transaction.
    static func lookup(
        _ id: String,
        with serverAPI: ServerAPIClient,
        signed: SignedTransactionVerifier
    ) async -> VerificationAttempt {
        let outcome = await serverAPI.inEitherEnvironment(
            id,
            .transactionInfo,
            path: ServerAPIClient.transactionPath(id)
        )
        guard case .found(let body) = outcome.answer else { return outcome.attempt() }
        guard let info = try? JSONDecoder().decode(TransactionInfoAnswer.self, from: body) else {
            return outcome.garbled("200 without signedTransactionInfo")
        }
        let transaction: SignedTransaction
        do {
            transaction = try await signed.verify(info.signedTransactionInfo)
        } catch {
            return outcome.attempt(.reject(reason: "Server API answer: \(error)"))
        }
        // As for a history: an environment's answer is about that environment's transaction, or not one to trust.
        guard let environment = outcome.environment, transaction.environment == environment.rawValue else {
            return outcome.attempt(
                .reject(
                    reason:
                        "\(outcome.environment?.rawValue ?? "unknown") answer holds a \(transaction.environment) transaction"
                )
            )
        }
        return outcome.attempt(verdict(for: transaction))
    }
}
