import Foundation
import X509

/// Verifies a StoreKit 2 signed transaction (a compact JWS) offline with `AppleJWSVerifier`: the chain must be
/// valid at the transaction's `signedDate`. Bundle and environment are the outcome rules' to judge
/// (`DeliveryPlanner.rejection`), as for every store answer.
package final class SignedTransactionVerifier: Sendable {
    /// Why a signed transaction is not one Apple made: the check that failed, for `last_error`.
    package struct Rejection: Error, Equatable, CustomStringConvertible {
        /// The failed check, in words.
        package var description: String
    }

    private let jws: AppleJWSVerifier

    /// Creates a verifier that trusts `roots` (Apple Root CA - G3 in production).
    package convenience init(roots: [Certificate]) {
        self.init(jws: AppleJWSVerifier(roots: roots))
    }

    /// Creates a verifier on `jws`, whose remembered chains it shares with the other users of `jws`.
    package init(jws: AppleJWSVerifier) {
        self.jws = jws
    }

    /// The transaction in `jws`, once every check passed.
    package func verify(_ jws: String) async throws(Rejection) -> SignedTransaction {
        do {
            return try await self.jws.verify(
                jws,
                noun: "signed transaction",
                read: { try SignedTransaction(json: $0) },
                signedDate: \.signedDate
            )
        } catch {
            throw Rejection(description: error.description)
        }
    }
}
