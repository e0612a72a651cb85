import FakeAppStore
import Foundation
import ReceiptdCore

/// Builds a load run's enqueue calls. The order id ends in the kind's code, so the outcome check
/// needs nothing but the orders table: `-f` full, `-p` partial, `-n` no_in_app, `-r` replace,
/// `-a`/`-b` the two orders of a replay pair, `-t` a signed transaction, `-g` a Google Play purchase.
struct LoadOrderFactory: Sendable {
    static let product = "com.example.gems100"
    /// Apple's wait for the first receipt of a `replace` order, so its replacement finds it in flight.
    static let replacedReceiptDelayMilliseconds = 200

    /// Prefix of every order, user and the run's id, e.g. `lg1717171717171-3f2a`.
    let runID: String
    /// Digits that make this run's transaction ids unique in the ledger.
    let transactionBase: String
    /// Distinct users the orders are spread over.
    let users: Int
    /// Mints the `transaction` kind's signed transactions.
    let signer: TransactionSigner?

    /// A new run id and transaction base, both unique enough for runs against a shared database.
    init(users: Int, signer: TransactionSigner? = nil) {
        self.signer = signer
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        let salt = UInt16.random(in: 0...UInt16.max)
        runID = "lg\(milliseconds)-\(String(salt, radix: 16))"
        transactionBase = "\(milliseconds)\(String(format: "%05d", Int(salt)))"
        self.users = max(1, users)
    }

    /// The calls for the `slot`-th mix entry, and for `replace` the newer receipt to send a little later.
    func calls(slot: Int, kind: LoadMix.Kind) async throws -> (now: [LoadEnqueue], later: LoadEnqueue?) {
        let order = "\(runID)-\(String(format: "%08d", slot))"
        let user = "\(runID)-u\(slot % users)"
        let transaction = "\(transactionBase)\(String(format: "%09d", slot))0"
        switch kind {
        case .full:
            return ([call(order + "-f", user, receipt([transaction]))], nil)
        case .partial:
            return ([call(order + "-p", user, receipt([transaction]), quantity: 2)], nil)
        case .noInApp:
            return ([call(order + "-n", user, receipt([]))], nil)
        case .replay:
            let thief = "\(runID)-x\(slot % users)"
            return (
                [call(order + "-a", user, receipt([transaction])), call(order + "-b", thief, receipt([transaction]))],
                nil
            )
        case .replace:
            let first = receipt([transaction], delay: Self.replacedReceiptDelayMilliseconds)
            let newer = "\(transactionBase)\(String(format: "%09d", slot))1"
            return ([call(order + "-r", user, first)], call(order + "-r", user, receipt([newer])))
        case .transaction:
            guard let signer else {
                throw LoadError("mix: the transaction kind needs a signer (a stand-in that signs)")
            }
            let signed = try await signer.sign(
                SignedTransactionPayload(transactionId: transaction, productId: Self.product)
            )
            var enqueue = call(order + "-t", user, signed)
            enqueue.kind = .transaction
            return ([enqueue], nil)
        case .google:
            let token = SyntheticPurchaseToken(productID: Self.product, orderID: "GPA.\(transaction)")
            var enqueue = call(order + "-g", user, token.encoded())
            enqueue.kind = .googlePurchase
            return ([enqueue], nil)
        }
    }

    /// Rebuilds a receipt's purchase dates as of now, for a call sent later than it was planned.
    func refreshed(_ call: LoadEnqueue) -> LoadEnqueue {
        guard let data = Data(base64Encoded: call.r),
            var receipt = try? JSONDecoder().decode(SyntheticReceipt.self, from: data)
        else { return call }
        let now = Self.nowMilliseconds
        receipt.inApp = receipt.inApp?.map {
            var transaction = $0
            transaction.purchaseDateMilliseconds = now
            return transaction
        }
        var copy = call
        copy.r = receipt.encoded()
        return copy
    }

    private func call(_ order: String, _ user: String, _ receipt: String, quantity: Int = 1) -> LoadEnqueue {
        LoadEnqueue(o: order, u: user, p: Self.product, r: receipt, q: quantity)
    }

    /// Purchase dates are "now": a purchase older than its order (minus the skew) would not pay it.
    private func receipt(_ transactions: [String], delay: Int? = nil) -> String {
        let now = Self.nowMilliseconds
        return SyntheticReceipt(
            inApp: transactions.map {
                SyntheticTransaction(transactionID: $0, productID: Self.product, purchaseDateMilliseconds: now)
            },
            delayMilliseconds: delay
        ).encoded()
    }

    private static var nowMilliseconds: String { String(Int64(Date().timeIntervalSince1970 * 1000)) }
}
