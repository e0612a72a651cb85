@testable import ReceiptdCore

extension ClaimFilter {
    /// Whether a job of `kind` with `input` passes: the claim statement's predicate (`PostgresJobQueue.claimSQL`)
    /// written in Swift, for the tests of the dispatcher and of the store APIs, which claim from memory.
    func admits(kind: JobKind, input: String) -> Bool {
        guard kinds.contains(kind) else { return false }
        guard kind == .transaction else { return true }
        switch transactions {
        case .all: return true
        case .signed: return !StoreAPI.isTransactionID(input)
        case .ids: return StoreAPI.isTransactionID(input)
        }
    }
}
