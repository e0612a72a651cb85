import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Receipt jobs with `RECEIPTD_RECEIPT_VERIFIER=server_api`: the PKCS#7 receipt names a transaction, and that
/// customer's Get Transaction History v2, page by page and in the environment that knows it, settles the order.
@Suite struct ReceiptHistoryTests {
    private static func payload(_ id: String, environment: String = "Production") -> SignedTransactionPayload {
        SignedTransactionPayload(transactionId: id, productId: "gems", environment: environment)
    }

    private static func receipt(_ inApp: SignedTransactionPayload...) -> String {
        AppReceiptBuilder(inApp: inApp).encoded()
    }

    private func serverAPI(_ f: Fixture) -> ReceiptdSettings {
        f.settings { $0.storeKit.receiptVerifier = .serverAPI }
    }

    private func historyRequests(_ f: Fixture) -> [RecordedServerAPIRequest] {
        f.standIn.recordedServerAPIRequests().filter { $0.endpoint == .transactionHistory }
    }

    @Test func aReceiptSettlesThroughEveryPageOfTheHistory() async throws {
        try await Fixture.with { f in
            let history = (1...5).map { Self.payload("910\($0)") }
            f.standIn.register(history: history)
            try await f.enqueue("paged", receipt: Self.receipt(history[0]), quantity: 5)
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            let order = try await f.order("paged")
            #expect(
                order["outcome"] == "full" && order["delivered_quantity"] == "5" && order["environment"] == "Production"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE order_id = 'paged'") == "5")
            // Five transactions two to a page: three pages, each after the first asked from the revision before.
            let pages = historyRequests(f)
            #expect(pages.count == 3)
            #expect(
                pages.allSatisfy { $0.transactionID == "9101" && $0.environment == .production && $0.httpStatus == 200 }
            )
            #expect(pages.first?.revision == nil && pages.dropFirst().allSatisfy { $0.revision != nil })
            #expect(Set(pages.compactMap(\.revision)).count == 2)
            #expect(f.standIn.recordedRequests().isEmpty, "verifyReceipt was not called")
        }
    }

    @Test func aSandboxHistoryIsReadAfterProductionDoesNotKnowIt() async throws {
        try await Fixture.with { f in
            let history = [Self.payload("9201", environment: "Sandbox"), Self.payload("9202", environment: "Sandbox")]
            f.standIn.register(history: history)
            try await f.enqueue("sandbox", receipt: Self.receipt(history[1]))
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            let order = try await f.order("sandbox")
            #expect(order["outcome"] == "full" && order["environment"] == "Sandbox")
            let requests = historyRequests(f)
            #expect(requests.map(\.environment) == [.production, .sandbox])
            #expect(requests.map(\.errorCode) == [4_040_010, nil])
            #expect(try await f.value("SELECT environment FROM iap.deliveries WHERE order_id = 'sandbox'") == "Sandbox")
        }
    }

    @Test func aReceiptWithoutPurchasesIsNoInAppWithoutAsking() async throws {
        try await Fixture.with { f in
            try await f.enqueue("empty", receipt: Self.receipt())
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("empty")["outcome"] == "no_in_app")
            #expect(f.standIn.recordedServerAPIRequests().isEmpty)
        }
    }

    @Test func whatIsNoReceiptIsInvalidAndSaysWhy() async throws {
        try await Fixture.with { f in
            try await f.enqueue("garbage", receipt: Data("definitely not a receipt".utf8).base64EncodedString())
            try await f.enqueue("legacy", user: "u2", receipt: Receipts.paying("9301"))
            try await f.enqueue("unknown", user: "u3", receipt: Self.receipt(Self.payload("9302")))
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            for id in ["garbage", "legacy"] {
                let order = try await f.order(id)
                #expect(order["outcome"] == "invalid" && order["attempts"] == "1")
                #expect(order["last_error"] == "receipt is not a PKCS#7 signedData container")
            }
            let unknown = try await f.order("unknown")
            #expect(
                unknown["outcome"] == "invalid"
                    && unknown["last_error"]?.contains("not found in production or sandbox") == true
            )
            #expect(historyRequests(f).map(\.transactionID) == ["9302", "9302"])
        }
    }

    @Test func aTransactionDeliveredByAnotherJobPaysNothingTwice() async throws {
        try await Fixture.with { f in
            let token = UUID()
            var first = Self.payload("9401")
            first.appAccountToken = token.uuidString.lowercased()
            let second = Self.payload("9402")
            f.standIn.register(first)
            f.standIn.register(history: [first, second])
            try await f.enqueue("by-id", transaction: "9401", appAccountToken: token)
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("by-id")["outcome"] == "full")
            try await f.enqueue("by-receipt", receipt: Self.receipt(first), quantity: 2)
            try await f.withDaemons(settings: serverAPI(f)) { _ in try await f.waitUntilSettled() }
            let order = try await f.order("by-receipt")
            #expect(order["outcome"] == "partial" && order["delivered_quantity"] == "1")
            #expect(
                try await f.value(
                    "SELECT string_agg(transaction_id || '→' || order_id, ',' ORDER BY transaction_id) FROM iap.deliveries"
                )
                    == "9401→by-id,9402→by-receipt"
            )
        }
    }

    /// Issue 17, item 1: a receipt nobody signed, or one signed under another root, names another player's
    /// transaction id: it is `invalid` before anything is looked up, and the victim's purchase stays theirs.
    @Test func aHomeMadeReceiptIsInvalidAndAppleIsNotAsked() async throws {
        let foreign = try AppleReceiptTestChain.generate()
        let noLeafOID = try AppleReceiptTestChain.generate(leafHasAppleOID: false)
        try await Fixture.with { f in
            let victims = Self.payload("9501")
            f.standIn.register(history: [victims])
            let cases: [(order: String, signer: AppleReceiptTestChain?, error: String)] = [
                ("unsigned", nil, "receipt is not signed: its PKCS#7 container has no signer"),
                (
                    "foreign", foreign,
                    "receipt's certificate chain does not verify to a trusted receipt root at its creation date"
                ),
                ("leaf-oid", noLeafOID, "receipt's signing certificate lacks Apple's OID 1.2.840.113635.100.6.11.1"),
            ]
            for (index, item) in cases.enumerated() {
                try await f.enqueue(
                    item.order,
                    user: "thief\(index)",
                    receipt: AppReceiptBuilder(inApp: [victims], signer: item.signer).encoded()
                )
            }
            // The OID-less chain's root is trusted, so only the OID check can refuse it.
            let settings = f.settings {
                $0.storeKit.receiptVerifier = .serverAPI
                $0.storeKit.receiptRoots = [f.standIn.receiptChain.root, noLeafOID.root]
            }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            for item in cases {
                let order = try await f.order(item.order)
                #expect(order["outcome"] == "invalid" && order["attempts"] == "1", "\(item.order)")
                #expect(
                    order["last_error"]?.hasPrefix(item.error) == true,
                    "\(item.order): \(order["last_error"] ?? "nil")"
                )
            }
            #expect(f.standIn.recordedServerAPIRequests().isEmpty, "the Server API was not asked")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")

            // The victim's own receipt, signed as Apple signs, still gets the purchase.
            try await f.enqueue("victims", user: "victor", receipt: Self.receipt(victims))
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("victims")["outcome"] == "full")
        }
    }

    /// A receipt made while its signing chain was valid verifies after the chain expired (Apple's SHA-1 receipt
    /// intermediate expired 2025-01-24): the chain is checked at the receipt's creation date, not today.
    @Test func aReceiptVerifiesAtItsCreationDateAfterItsChainExpired() async throws {
        let day: TimeInterval = 86_400
        let expired = try AppleReceiptTestChain.generate(
            notValidBefore: Date() - 3 * 365 * day,
            notValidAfter: Date() - 365 * day
        )
        try await Fixture.with { f in
            let old = Self.payload("9601")
            let late = Self.payload("9602")
            f.standIn.register(history: [old])
            f.standIn.register(history: [late])
            try await f.enqueue(
                "made-then",
                receipt: AppReceiptBuilder(inApp: [old], creationDate: Date() - 2 * 365 * day, signer: expired)
                    .encoded()
            )
            try await f.enqueue(
                "made-today",
                user: "u2",
                receipt: AppReceiptBuilder(inApp: [late], creationDate: Date(), signer: expired).encoded()
            )
            let settings = f.settings {
                $0.storeKit.receiptVerifier = .serverAPI
                $0.storeKit.receiptRoots = [expired.root]
            }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("made-then")["outcome"] == "full")
            let today = try await f.order("made-today")
            #expect(today["outcome"] == "invalid" && today["last_error"]?.contains("at its creation date") == true)
            #expect(historyRequests(f).map(\.transactionID) == ["9601"])
        }
    }
}
