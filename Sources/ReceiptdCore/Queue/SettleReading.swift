/// What the settle's read pipeline (`PostgresJobQueue.settleReads`, after its `BEGIN`) found, by name.
struct SettleReading {
    /// The users' open orders and the jobs' own orders, locked, each with its user.
    var orders: [(user: String, snapshot: OrderSnapshot)]
    /// The batch's jobs that are still `running` under this daemon, locked.
    var runningJobs: Set<Int64>
    /// The batch's transactions already in the ledger, each with the order it paid.
    var delivered: [String: String]
    /// The first owner (user) of each original transaction the batch carries that has one.
    var owners: [String: String]
    /// The batch's transactions a store reported revoked whole (`iap.revoked_transactions`), by store.
    var revoked: Set<RevokedTransactionKey>
    /// The batch's transactions a store refunded a share of before delivery (`refund_prorated`), with the share in
    /// thousandths of a percent: they still deliver, with that share revoked.
    var proratedShares: [RevokedTransactionKey: Int] = [:]
    /// The catalogue's rows for the batch's products.
    var catalogue: ProductCatalogue

    /// Reads the results of `BEGIN`, `orders`, `jobs`, `delivered`, `owners`, `revoked` and `products`, in that
    /// order.
    init(_ results: [QueryResult]) throws {
        guard results.count == 7 else {
            throw PostgresError(kind: .query, message: "settle reads: \(results.count) results, expected 7")
        }
        let (orderRows, jobRows, deliveredRows, ownerRows) = (results[1], results[2], results[3], results[4])
        orders = try orderRows.namedRows.map { row in (try row.string("user_id"), try OrderSnapshot(row)) }
        runningJobs = Set(
            try jobRows.namedRows.filter { try $0.string("state") == JobState.running.rawValue }
                .map { Int64(try $0.int("id")) }
        )
        delivered = Dictionary(
            try deliveredRows.namedRows.map { (try $0.string("transaction_id"), try $0.string("order_id")) },
            uniquingKeysWith: { first, _ in first }
        )
        owners = Dictionary(
            try ownerRows.namedRows.map { (try $0.string("original_transaction_id"), try $0.string("user_id")) },
            uniquingKeysWith: { first, _ in first }
        )
        var revoked: Set<RevokedTransactionKey> = []
        for row in results[5].namedRows {
            guard let store = Store(rawValue: try row.string("store")) else { continue }
            let key = RevokedTransactionKey(store: store, transactionID: try row.string("transaction_id"))
            if try row.string("revocation_reason") == RevokedTransactionKey.proratedReason,
                let share = row.optionalInt("revocation_percentage")
            {
                proratedShares[key] = share
            } else {
                revoked.insert(key)
            }
        }
        self.revoked = revoked
        catalogue = try ProductCatalogue(results[6])
    }
}

/// A transaction a store reported revoked, as `iap.revoked_transactions` keys it.
struct RevokedTransactionKey: Hashable {
    /// The `revocation_reason` of a prorated refund: a share of the purchase, which still delivers.
    static let proratedReason = "refund_prorated"

    /// The store that reported it.
    var store: Store
    /// Its ledger id.
    var transactionID: String
}
