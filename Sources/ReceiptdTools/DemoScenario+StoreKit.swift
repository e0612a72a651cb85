import FakeAppStore
import Foundation

extension DemoScenario {
    /// One `iap.enqueue_transaction` call.
    struct TransactionEnqueue {
        var orderID: String
        var userID: String
        var productID: String
        /// A signed transaction (JWS) or a transaction id.
        var transaction: String
        var appAccountToken: UUID?
    }

    /// The outcome each StoreKit 2 order must end with.
    static let expectedTransactionOutcomes: [String: String] = [
        "demo-sk2-signed": "full", "demo-sk2-id": "full", "demo-sk2-forged": "invalid", "demo-sk2-revoked": "unmatched",
        "demo-sk2-token": "unmatched",
    ]

    /// StoreKit 2 orders: a signed transaction verified offline, a transaction id looked up with the stand-in's
    /// App Store Server API (registered there), a JWS signed by a chain nobody trusts, a revoked purchase, and a
    /// purchase made by another account than the order's.
    static func transactions(standIn: AppStoreStandIn, now: Date = Date()) throws -> [TransactionEnqueue] {
        let gems = "com.example.gems100"
        let chain = standIn.testChain
        func payload(_ id: String, token: UUID? = nil, revoked: Bool = false) -> SignedTransactionPayload {
            SignedTransactionPayload(
                transactionId: id,
                productId: gems,
                appAccountToken: token?.uuidString.lowercased(),
                revocationDate: revoked ? Int64(now.timeIntervalSince1970 * 1000) : nil,
                revocationReason: revoked ? 1 : nil
            )
        }
        // A transaction id pays only the order whose app account token its purchase carries.
        let looked = UUID()
        standIn.register(payload("2000000002", token: looked))
        let forger = try AppleTestChain.generate()
        let ordered = UUID()
        return [
            TransactionEnqueue(
                orderID: "demo-sk2-signed",
                userID: "nina",
                productID: gems,
                transaction: chain.signedTransaction(payload("2000000001"))
            ),
            TransactionEnqueue(
                orderID: "demo-sk2-id",
                userID: "oscar",
                productID: gems,
                transaction: "2000000002",
                appAccountToken: looked
            ),
            TransactionEnqueue(
                orderID: "demo-sk2-forged",
                userID: "mallory",
                productID: gems,
                transaction: forger.signedTransaction(payload("2000000003"))
            ),
            TransactionEnqueue(
                orderID: "demo-sk2-revoked",
                userID: "peggy",
                productID: gems,
                transaction: chain.signedTransaction(payload("2000000004", revoked: true))
            ),
            TransactionEnqueue(
                orderID: "demo-sk2-token",
                userID: "quinn",
                productID: gems,
                transaction: chain.signedTransaction(payload("2000000005", token: UUID())),
                appAccountToken: ordered
            ),
        ]
    }
}
