extension OperatorQueries {
    /// How many orders the player page lists, newest first.
    package static let playerOrdersLimit = 200
    /// How many unclaimed payments and suspicious receipts the player page lists.
    package static let playerListLimit = 100

    /// Everything the console shows about `userID`, from one read-only snapshot. A user id with no order still
    /// answers (with empty lists): payments and flags may name a user who never ordered.
    package func player(_ userID: String) async throws -> PlayerDetail {
        let ordersLimit = Self.playerOrdersLimit
        let listLimit = Self.playerListLimit
        let (orders, owed, revocations, trust, unclaimed, suspicious, spent, refunds) = try await connection.withSession
        {
            session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let orders = try session.execute(
                    """
                    SELECT order_id, status::text AS status, outcome::text AS outcome, product_id, quantity,
                           delivered_quantity, \(Self.utc("created_at")) AS created_at
                    FROM iap.orders WHERE user_id = $1
                    ORDER BY created_at DESC, order_id DESC
                    LIMIT $2
                    """,
                    [userID, ordersLimit + 1]
                )
                // As iap.owed_deliveries reads them (a function for receiptd_app only).
                let owed = try session.execute(
                    """
                    SELECT transaction_id, order_id, product_id, quantity, at, NULL AS reason FROM (
                        SELECT d.transaction_id, d.order_id, d.product_id,
                               CASE WHEN d.granted_at IS NULL THEN d.quantity ELSE d.reinstated_quantity END AS quantity,
                               d.delivered_at AS time, \(Self.utc("d.delivered_at")) AS at
                        FROM iap.deliveries d
                        WHERE d.user_id = $1 AND (d.granted_at IS NULL OR d.reinstated_quantity > 0)
                          AND d.revoked_at IS NULL
                        UNION ALL
                        SELECT 'provisional:' || g.order_id, g.order_id, g.product_id, g.quantity, g.created_at,
                               \(Self.utc("g.created_at"))
                        FROM iap.provisional_grants g
                        WHERE g.user_id = $1 AND g.state = 'unconfirmed' AND g.granted_at IS NULL
                    ) o
                    ORDER BY time, transaction_id
                    """,
                    [userID]
                )
                // As iap.owed_revocations reads them.
                let revocations = try session.execute(
                    """
                    SELECT transaction_id, order_id, product_id, quantity, at, reason FROM (
                        SELECT d.transaction_id, d.order_id, d.product_id,
                               (CASE WHEN d.revoked_at IS NOT NULL THEN d.quantity ELSE d.revoked_quantity END)
                                   - d.revocation_handled_quantity AS quantity,
                               d.revoked_at AS time, \(Self.utc("d.revoked_at")) AS at,
                               coalesce(d.revocation_reason, 'partial refund') AS reason
                        FROM iap.deliveries d
                        WHERE d.user_id = $1
                          AND ((d.revoked_at IS NOT NULL AND d.revocation_handled_at IS NULL)
                               OR d.revoked_quantity > d.revocation_handled_quantity
                               OR (d.revoked_at IS NULL AND d.revocation_percentage > d.revocation_handled_percentage))
                        UNION ALL
                        SELECT 'provisional:' || g.order_id, g.order_id, g.product_id, g.quantity, g.resolved_at,
                               \(Self.utc("g.resolved_at")),
                               CASE WHEN g.replaced THEN 'provisional_replaced'
                                    WHEN g.state = 'cancelled' THEN 'provisional_cancelled'
                                    ELSE 'provisional_refuted' END
                        FROM iap.provisional_grants g
                        WHERE g.user_id = $1 AND (g.state IN ('refuted', 'cancelled') OR g.replaced)
                          AND g.revocation_handled_at IS NULL
                    ) r
                    ORDER BY time NULLS LAST, transaction_id
                    """,
                    [userID]
                )
                let trust = try session.execute(Self.trustOf, [userID, nil as String?])
                let unclaimed = try session.execute(
                    """
                    SELECT \(UnclaimedPayment.columns) FROM iap.unclaimed_payments
                    WHERE user_id = $1 ORDER BY first_seen_at DESC, transaction_id LIMIT $2
                    """,
                    [userID, listLimit]
                )
                let suspicious = try session.execute(
                    """
                    SELECT \(Self.utc("seen_at")) AS seen_at, job_id, order_id, original_transaction_id, owner_user_id,
                           owner_order_id
                    FROM iap.suspicious_receipts WHERE user_id = $1
                    ORDER BY seen_at DESC, job_id DESC, original_transaction_id LIMIT $2
                    """,
                    [userID, listLimit]
                )
                let spent = try session.execute(
                    """
                    SELECT currency, sum(price)::text AS total, count(*) AS purchases FROM iap.deliveries
                    WHERE user_id = $1 AND price IS NOT NULL AND currency IS NOT NULL
                      AND ownership IS DISTINCT FROM 'family_shared'
                    GROUP BY currency ORDER BY currency
                    """,
                    [userID]
                )
                let refunds = try session.execute(Self.refundRequestsQuery, [userID, nil as String?, listLimit])
                return (orders, owed, revocations, trust, unclaimed, suspicious, spent, refunds)
            }
        }
        let orderRows = try orders.namedRows.map { row in
            PlayerDetail.Order(
                orderID: try row.string("order_id"),
                status: try row.string("status"),
                outcome: row["outcome"],
                productID: try row.string("product_id"),
                quantity: try row.int("quantity"),
                deliveredQuantity: try row.int("delivered_quantity"),
                createdAt: try row.string("created_at")
            )
        }
        var detail = PlayerDetail(
            userID: userID,
            orders: Array(orderRows.prefix(ordersLimit)),
            moreOrders: orderRows.count > ordersLimit,
            owedDeliveries: try owed.namedRows.map(PlayerDetail.LedgerRow.init(row:)),
            owedRevocations: try revocations.namedRows.map(PlayerDetail.LedgerRow.init(row:)),
            trust: try trust.namedRows.map { try UserTrust(row: $0, userID: userID) },
            unclaimed: try unclaimed.namedRows.map(UnclaimedPayment.init(row:)),
            suspicious: try suspicious.namedRows.map { row in
                PlayerDetail.SuspiciousReceipt(
                    seenAt: try row.string("seen_at"),
                    jobID: try row.int64("job_id"),
                    orderID: try row.string("order_id"),
                    originalTransactionID: try row.string("original_transaction_id"),
                    ownerUserID: try row.string("owner_user_id"),
                    ownerOrderID: row["owner_order_id"]
                )
            },
            spent: try spent.namedRows.map { row in
                PlayerDetail.Spending(
                    currency: try row.string("currency"),
                    total: try row.string("total"),
                    purchases: try row.int("purchases")
                )
            },
            refundRequests: try refunds.namedRows.map(RefundRequestSummary.init(row:))
        )
        detail.subscriptions = try await subscriptions(of: userID)
        return detail
    }
}

extension PlayerDetail.LedgerRow {
    /// Reads a row of the owed deliveries or revocations.
    init(row: QueryResult.Row) throws {
        self.init(
            transactionID: try row.string("transaction_id"),
            orderID: try row.string("order_id"),
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            at: row["at"],
            reason: row["reason"]
        )
    }
}
