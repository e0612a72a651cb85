/// Which due jobs one claim may take: only kinds this daemon knows (a kind added by a later migration stays
/// `pending` for the daemons that know it), minus the jobs whose store API is paused.
package struct ClaimFilter: Sendable, Equatable {
    /// Which `transaction` jobs pass: the Server API looks up transaction ids; a signed one needs no API.
    package enum TransactionInputs: String, Sendable {
        /// Signed transactions and transaction ids.
        case all
        /// Only signed transactions: the Server API is paused.
        case signed
        /// Only bare decimal transaction ids: a Server API probe.
        case ids
    }

    /// The kinds that may be claimed.
    package var kinds: [JobKind]
    /// Which transaction jobs, when `kinds` holds `transaction`.
    package var transactions: TransactionInputs

    /// Creates a filter; by default every kind this binary knows, every input.
    package init(kinds: [JobKind] = JobKind.allCases, transactions: TransactionInputs = .all) {
        self.kinds = kinds
        self.transactions = transactions
    }

    /// Every job that needs none of the `paused` APIs, with receipts verified the `receipts` way.
    package static func avoiding(_ paused: Set<StoreAPI>, receipts: ReceiptVerifierChoice) -> ClaimFilter {
        ClaimFilter(
            kinds: JobKind.allCases.filter { kind in
                switch kind {
                case .receipt: !paused.contains(receipts == .serverAPI ? .serverAPI : .verifyReceipt)
                case .transaction: true
                case .googlePurchase: !paused.contains(.googlePlay)
                }
            },
            transactions: paused.contains(.serverAPI) ? .signed : .all
        )
    }

    /// Only jobs that need `api`: the half-open breaker's probe. Empty when no job needs it (verifyReceipt while
    /// receipts go to the Server API).
    package static func needing(_ api: StoreAPI, receipts: ReceiptVerifierChoice) -> ClaimFilter {
        switch api {
        case .verifyReceipt: ClaimFilter(kinds: receipts == .verifyReceipt ? [.receipt] : [])
        case .serverAPI:
            ClaimFilter(kinds: receipts == .serverAPI ? [.receipt, .transaction] : [.transaction], transactions: .ids)
        case .googlePlay: ClaimFilter(kinds: [.googlePurchase])
        }
    }

    /// The claim's parameters: the kinds as a `text[]` literal (`{receipt,transaction}`), and `transactions`.
    var parameters: (kinds: String, transactions: String) {
        ("{" + kinds.map(\.rawValue).joined(separator: ",") + "}", transactions.rawValue)
    }
}
