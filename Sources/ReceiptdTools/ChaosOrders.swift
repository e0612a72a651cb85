import FakeAppStore
import Foundation
import ReceiptdCore

/// The orders a chaos run enqueues, and what each must end as.
struct ChaosOrders {
    /// One `iap.enqueue_receipt`, `iap.enqueue_transaction` or `iap.enqueue_google_purchase` call, by `kind`.
    struct Enqueue {
        var orderID: String
        var userID: String
        var quantity: Int
        /// The receipt, or the signed transaction or transaction id.
        var receipt: String
        var kind: JobKind = .receipt
        /// The order's app account token, which a transaction id's purchase must carry to pay it.
        var appAccountToken: UUID? = nil
    }

    /// What the checks expect of an order (or of a pair of orders).
    enum Expectation {
        /// Outcome `full`, with exactly this transaction delivered to it.
        case full(transactionID: String)
        /// Outcome `partial`, one unit delivered.
        case partial(transactionID: String)
        /// Outcome `no_in_app`, nothing delivered.
        case noInApp
        /// A transaction redeemed by two users: one order `full`, the other `unmatched`.
        case replayPair(otherOrderID: String, transactionID: String)
        /// Replaced mid-run: `full`, with exactly one of the two receipts' transactions delivered.
        case replaced(first: String, second: String)
    }

    static let product = "com.example.gems100"

    /// Enqueued before the daemons start.
    private(set) var initial: [Enqueue] = []
    /// Newer receipts, enqueued while the daemons run.
    private(set) var replacements: [Enqueue] = []
    /// App Store receipts enqueued while Google Play is out, which must settle meanwhile (`ChaosStoreOutage`).
    private(set) var outageBatch: [Enqueue] = []
    /// Expectation per order id (a replay pair is listed under its first order).
    private(set) var expectations: [String: Expectation] = [:]

    /// `count` orders; a tenth are StoreKit 2 transactions, signed by `standIn`'s chain or registered with it
    /// for a Server API lookup, and a tenth Google Play purchases; and `outageOrders` receipts for the store outage (`outageBatch`).
    init(count: Int, outageOrders: Int = 0, standIn: AppStoreStandIn) {
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        func receipt(_ ids: [String], delay: Int? = nil) -> String {
            SyntheticReceipt(
                inApp: ids.map {
                    SyntheticTransaction(transactionID: $0, productID: Self.product, purchaseDateMilliseconds: now)
                },
                delayMilliseconds: delay
            ).encoded()
        }
        for index in 0..<count {
            let order = "chaos-\(index)"
            let user = "user-\(index)"
            let transaction = String(2_000_000_000 + index * 10)
            switch index % 10 {
            case 4:
                // Google Play: the order is paid, and the purchase must be acknowledged exactly once.
                let token = SyntheticPurchaseToken(productID: Self.product, orderID: "GPA.\(transaction)")
                initial.append(
                    Enqueue(orderID: order, userID: user, quantity: 1, receipt: token.encoded(), kind: .googlePurchase)
                )
                expectations[order] = .full(transactionID: "GPA.\(transaction)")
            case 5:
                // Alternately a signed transaction, verified offline, and a transaction id the daemons look up.
                let token = UUID()
                let payload = SignedTransactionPayload(
                    transactionId: transaction,
                    productId: Self.product,
                    appAccountToken: token.uuidString.lowercased()
                )
                let input: String
                if index % 20 == 5 {
                    input = standIn.testChain.signedTransaction(payload)
                } else {
                    standIn.register(payload)
                    input = transaction
                }
                initial.append(
                    Enqueue(
                        orderID: order,
                        userID: user,
                        quantity: 1,
                        receipt: input,
                        kind: .transaction,
                        appAccountToken: token
                    )
                )
                expectations[order] = .full(transactionID: transaction)
            case 6:
                initial.append(Enqueue(orderID: order, userID: user, quantity: 2, receipt: receipt([transaction])))
                expectations[order] = .partial(transactionID: transaction)
            case 7:
                initial.append(Enqueue(orderID: order, userID: user, quantity: 1, receipt: receipt([])))
                expectations[order] = .noInApp
            case 8:
                let thief = "\(order)-replay"
                initial.append(Enqueue(orderID: order, userID: user, quantity: 1, receipt: receipt([transaction])))
                initial.append(
                    Enqueue(orderID: thief, userID: "\(user)-other", quantity: 1, receipt: receipt([transaction]))
                )
                expectations[order] = .replayPair(otherOrderID: thief, transactionID: transaction)
            case 9:
                let second = String(2_000_000_000 + index * 10 + 1)
                initial.append(
                    Enqueue(orderID: order, userID: user, quantity: 1, receipt: receipt([transaction], delay: 300))
                )
                replacements.append(Enqueue(orderID: order, userID: user, quantity: 1, receipt: receipt([second])))
                expectations[order] = .replaced(first: transaction, second: second)
            default:
                initial.append(Enqueue(orderID: order, userID: user, quantity: 1, receipt: receipt([transaction])))
                expectations[order] = .full(transactionID: transaction)
            }
        }
        for index in 0..<outageOrders {
            let order = "chaos-outage-\(index)"
            let transaction = String(3_000_000_000 + index)
            outageBatch.append(
                Enqueue(orderID: order, userID: "outage-user-\(index)", quantity: 1, receipt: receipt([transaction]))
            )
            expectations[order] = .full(transactionID: transaction)
        }
    }

    /// Every order id the run creates.
    var allOrderIDs: Set<String> { Set((initial + outageBatch).map(\.orderID)) }
}
