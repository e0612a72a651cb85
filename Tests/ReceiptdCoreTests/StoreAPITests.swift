import Testing

@testable import ReceiptdCore

/// Which store API a job needs, and which jobs a claim admits while some APIs are paused: pure rules.
@Suite struct StoreAPITests {
    static let signed = "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2ln"
    static let inputs: [(JobKind, String)] = [
        (.receipt, "MIIT"), (.transaction, "2000000123456789"), (.transaction, signed), (.transaction, "12a"),
        (.googlePurchase, "token-1"),
    ]

    @Test func eachJobNeedsTheAPIItCalls() {
        #expect(StoreAPI.needed(by: .receipt, input: "MIIT", receipts: .verifyReceipt) == .verifyReceipt)
        #expect(StoreAPI.needed(by: .receipt, input: "MIIT", receipts: .serverAPI) == .serverAPI)
        #expect(StoreAPI.needed(by: .transaction, input: "2000000123456789", receipts: .verifyReceipt) == .serverAPI)
        #expect(StoreAPI.needed(by: .transaction, input: Self.signed, receipts: .serverAPI) == nil, "verified offline")
        #expect(StoreAPI.needed(by: .transaction, input: "", receipts: .verifyReceipt) == nil)
        #expect(StoreAPI.needed(by: .googlePurchase, input: "token-1", receipts: .verifyReceipt) == .googlePlay)
        #expect(StoreAPI.allCases.map(\.store) == [.apple, .apple, .google])
        #expect(StoreAPI.allCases.map(\.rawValue) == ["verify_receipt", "server_api", "google_play"])
    }

    /// For every set of paused APIs and both receipt verifiers, the claim takes exactly the jobs that need no
    /// paused API, and a probe exactly the jobs that need its API.
    @Test func aPausedAPIHoldsBackOnlyTheJobsThatNeedIt() {
        for receipts in ReceiptVerifierChoice.allCases {
            for mask in 0..<(1 << StoreAPI.allCases.count) {
                let paused = Set(StoreAPI.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
                let filter = ClaimFilter.avoiding(paused, receipts: receipts)
                for (kind, input) in Self.inputs {
                    let needed = StoreAPI.needed(by: kind, input: input, receipts: receipts)
                    #expect(
                        filter.admits(kind: kind, input: input) == !(needed.map(paused.contains) ?? false),
                        "\(receipts) \(paused) \(kind) \(input)"
                    )
                }
            }
            for api in StoreAPI.allCases {
                let probe = ClaimFilter.needing(api, receipts: receipts)
                for (kind, input) in Self.inputs {
                    #expect(
                        probe.admits(kind: kind, input: input)
                            == (StoreAPI.needed(by: kind, input: input, receipts: receipts) == api),
                        "probe of \(api) under \(receipts): \(kind) \(input)"
                    )
                }
            }
        }
    }

    @Test func googleFailingPausesGoogleJobsOnly() {
        let filter = ClaimFilter.avoiding([.googlePlay], receipts: .verifyReceipt)
        #expect(filter == ClaimFilter(kinds: [.receipt, .transaction], transactions: .all))
        #expect(filter.parameters == ("{receipt,transaction}", "all"))
        let serverAPI = ClaimFilter.avoiding([.serverAPI], receipts: .serverAPI)
        #expect(serverAPI == ClaimFilter(kinds: [.transaction, .googlePurchase], transactions: .signed))
        #expect(
            ClaimFilter().parameters == ("{receipt,transaction,google_purchase}", "all"),
            "every known kind by default"
        )
    }
}
