import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// StoreKit 2 signed transactions through `iap.enqueue_transaction`, verified offline: each check of the JWS and
/// each outcome rule, against the stand-in's chain.
@Suite struct SignedTransactionTests {
    private static func payload(
        _ id: String,
        product: String = "gems",
        environment: String = "Production",
        bundle: String = SyntheticReceipt.defaultBundleID,
        token: UUID? = nil,
        revoked: Bool = false
    ) -> SignedTransactionPayload {
        SignedTransactionPayload(
            transactionId: id,
            bundleId: bundle,
            productId: product,
            environment: environment,
            appAccountToken: token?.uuidString.lowercased(),
            revocationDate: revoked ? SignedTransactionPayload.nowMilliseconds() : nil,
            revocationReason: revoked ? 1 : nil
        )
    }

    @Test func aSignedTransactionSettlesItsOrderWithoutCallingApple() async throws {
        try await Fixture.with { f in
            let jws = f.standIn.testChain.signedTransaction(Self.payload("7001"))
            let job = try await f.enqueue("sk2", transaction: jws)
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("sk2")
            #expect(order["outcome"] == "full" && order["state"] == "succeeded")
            #expect(try await f.value("SELECT kind FROM iap.jobs WHERE id = $1", [job]) == "transaction")
            let ledger = try await f.row("SELECT transaction_id, environment, job_id FROM iap.deliveries")
            #expect(
                ledger["transaction_id"] == "7001" && ledger["environment"] == "Production"
                    && ledger["job_id"] == String(job)
            )
            #expect(f.standIn.recordedRequests().isEmpty && f.standIn.recordedServerAPIRequests().isEmpty)
            let detail = try await OperatorQueries(connection: f.connection).show(orderID: "sk2")
            #expect(detail.jobs.map(\.kind) == [.transaction])
        }
    }

    @Test func eachFailedCheckMakesTheOrderInvalidAndSaysWhich() async throws {
        let foreign = try AppleTestChain.generate()
        let noLeafOID = try AppleTestChain.generate(leafHasAppleOID: false)
        let noIntermediateOID = try AppleTestChain.generate(intermediateHasAppleOID: false)
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            let good = chain.signedTransaction(Self.payload("7101"))
            let other = chain.signedTransaction(Self.payload("7102", product: "coins"))
            let goodParts = good.split(separator: ".")
            let cases: [(order: String, jws: String, error: String)] = [
                ("forged", foreign.signedTransaction(Self.payload("7110")), "does not verify to a trusted root"),
                (
                    "leaf-oid", noLeafOID.signedTransaction(Self.payload("7111")),
                    "leaf certificate lacks Apple's OID 1.2.840.113635.100.6.11.1"
                ),
                (
                    "intermediate-oid", noIntermediateOID.signedTransaction(Self.payload("7112")),
                    "intermediate certificate lacks Apple's OID 1.2.840.113635.100.6.2.1"
                ),
                (
                    "signature", "\(goodParts[0]).\(goodParts[1]).\(other.split(separator: ".")[2])",
                    "signature does not verify"
                ),
                (
                    "two-certificates",
                    chain.sign(
                        payload: try JSONEncoder().encode(Self.payload("7113")),
                        x5c: [chain.leafDER, chain.intermediateDER]
                    ), "x5c holds 2 certificates, not 3"
                ),
                (
                    "bundle", chain.signedTransaction(Self.payload("7114", bundle: "com.other.app")),
                    "bundle is com.other.app"
                ),
                ("xcode", chain.signedTransaction(Self.payload("7115", environment: "Xcode")), "environment is Xcode"),
                ("no-alg", "e30.bm90IGpzb24.AAAA", "alg is absent, not ES256"),
            ]
            for (index, item) in cases.enumerated() {
                try await f.enqueue(item.order, user: "u\(index)", transaction: item.jws)
            }
            // The roots of the two OID-less chains are trusted too, so only the OID check can refuse them.
            let settings = f.settings {
                $0.storeKit.trustedRoots = [chain.root, noLeafOID.root, noIntermediateOID.root]
            }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            for item in cases {
                let order = try await f.order(item.order)
                #expect(order["outcome"] == "invalid" && order["state"] == "failed", "\(item.order)")
                #expect(
                    order["last_error"]?.contains(item.error) == true,
                    "\(item.order): \(order["last_error"] ?? "nil")"
                )
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func sandboxRevokedAndAccountTokenRules() async throws {
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            let token = UUID()
            try await f.enqueue(
                "sandbox",
                user: "u1",
                transaction: chain.signedTransaction(Self.payload("7201", environment: "Sandbox"))
            )
            try await f.enqueue(
                "revoked",
                user: "u2",
                transaction: chain.signedTransaction(Self.payload("7202", revoked: true))
            )
            try await f.enqueue(
                "stranger",
                user: "u3",
                transaction: chain.signedTransaction(Self.payload("7203", token: UUID())),
                appAccountToken: token
            )
            try await f.enqueue(
                "owner",
                user: "u4",
                transaction: chain.signedTransaction(Self.payload("7204", token: token)),
                appAccountToken: token
            )
            try await f.withDaemons(settings: f.settings { $0.daemon.sandbox = .reject }) { _ in
                try await f.waitUntilSettled()
            }
            let sandbox = try await f.order("sandbox")
            #expect(
                sandbox["outcome"] == "invalid" && sandbox["last_error"]?.contains("RECEIPTD_SANDBOX=reject") == true
            )
            #expect(try await f.order("revoked")["outcome"] == "unmatched")
            #expect(try await f.order("stranger")["outcome"] == "unmatched")
            #expect(try await f.order("owner")["outcome"] == "full")
            #expect(
                try await f.value("SELECT app_account_token FROM iap.orders WHERE order_id = 'owner'")
                    == token.uuidString.lowercased()
            )
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.deliveries") == "7204")
        }
    }

    @Test func oneLedgerAcrossReceiptsAndSignedTransactions() async throws {
        try await Fixture.with { f in
            // The same App Store transaction arrives as a receipt for one order and as a JWS for another.
            try await f.enqueue("by-receipt", receipt: Receipts.paying("7301"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            try await f.enqueue("by-jws", transaction: f.standIn.testChain.signedTransaction(Self.payload("7301")))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("by-receipt")["outcome"] == "full")
            #expect(try await f.order("by-jws")["outcome"] == "unmatched")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
        }
    }

    @Test func theNewestInputWinsAcrossBothFunctions() async throws {
        try await Fixture.with { f in
            let first = try await f.enqueue("mixed", receipt: Receipts.paying("7401"))
            let second = try await f.enqueue(
                "mixed",
                transaction: f.standIn.testChain.signedTransaction(Self.payload("7402"))
            )
            #expect(second != first)
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [first]) == "superseded")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.deliveries") == "7402")
        }
    }
}
