extension OperatorQueries {
    /// Unclaimed payments first seen since `since` (all when `nil`), newest first; with `includeAssigned`, also
    /// those already delivered to an order.
    package func unclaimed(since: TimeBound?, includeAssigned: Bool) async throws -> [UnclaimedPayment] {
        try await connection.execute(
            """
            SELECT \(UnclaimedPayment.columns)
            FROM iap.unclaimed_payments
            WHERE ($1 OR assigned_at IS NULL)
              AND (($2::timestamptz IS NULL AND $3::int IS NULL)
                   OR first_seen_at >= coalesce($2::timestamptz, now() - make_interval(secs => $3::int)))
            ORDER BY first_seen_at DESC, transaction_id
            """,
            [includeAssigned, since?.instantText, since?.secondsAgoValue]
        ).namedRows.map(UnclaimedPayment.init(row:))
    }

    /// The console's list: unclaimed payments matching `filter`, newest first, at most `filter.limit`.
    package func unclaimed(_ filter: UnclaimedFilter) async throws -> [UnclaimedPayment] {
        try await connection.execute(
            """
            SELECT \(UnclaimedPayment.columns)
            FROM iap.unclaimed_payments
            WHERE ($1 OR assigned_at IS NULL)
              AND ($2::text IS NULL OR store = $2)
              AND ($3::text IS NULL OR user_id = $3)
              AND ($4::text IS NULL OR transaction_id = $4)
            ORDER BY first_seen_at DESC, transaction_id
            LIMIT $5
            """,
            [filter.includeAssigned, filter.store, filter.userID, filter.transactionID, filter.limit]
        ).namedRows.map(UnclaimedPayment.init(row:))
    }

    /// `iap.assign_payment`: delivers an unclaimed payment to `orderID` through the ledger. Throws
    /// `OperatorError.notFound` for an unknown payment or order, `.refused` when it is delivered already, the
    /// order is full, or the products differ.
    package func assign(transactionID: String, to orderID: String) async throws -> AssignResult {
        try await audited(.assign, target: transactionID, orderID: orderID) { session in
            try session.execute("SELECT iap.assign_payment($1, $2)", [transactionID, orderID])
            let outcome =
                try session.execute(
                    "SELECT outcome::text AS outcome FROM iap.orders WHERE order_id = $1",
                    [orderID]
                )
                .first?.string("outcome") ?? ""
            return AssignResult(transactionID: transactionID, orderID: orderID, outcome: outcome)
        }
    }
}

extension UnclaimedPayment {
    /// The columns `init(row:)` reads, times as UTC text.
    static let columns = """
        transaction_id, product_id, quantity, \(OperatorQueries.utc("purchase_date")) AS purchase_date, environment,
        user_id, order_id, job_id, \(OperatorQueries.utc("first_seen_at")) AS first_seen_at, assigned_order_id,
        \(OperatorQueries.utc("assigned_at")) AS assigned_at, app_account_token::text AS app_account_token,
        notification_id, store, \(OperatorQueries.utc("acknowledge_by")) AS acknowledge_by
        """

    /// Reads an `iap.unclaimed_payments` row.
    init(row: QueryResult.Row) throws {
        self.init(
            transactionID: try row.string("transaction_id"),
            store: try row.string("store"),
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            purchaseDate: row["purchase_date"],
            environment: row["environment"],
            userID: row["user_id"],
            orderID: row["order_id"],
            jobID: row["job_id"].flatMap { Int64($0) },
            appAccountToken: row["app_account_token"],
            notificationID: row["notification_id"].flatMap { Int64($0) },
            acknowledgeBy: row["acknowledge_by"],
            firstSeenAt: try row.string("first_seen_at"),
            assignedOrderID: row["assigned_order_id"],
            assignedAt: row["assigned_at"]
        )
    }
}
