extension OperatorQueries {
    /// The order with every job, every attempt, every delivery and the store notifications about its deliveries;
    /// `orderID` may also be a ledger id (Apple's transaction id, Google's order id) of one of its deliveries.
    /// Throws `OperatorError.notFound` when it is neither.
    package func show(orderID argument: String) async throws -> OrderDetail {
        var detail = try await connection.withSession { session in
            try session.transaction { session in
                try session.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return try Self.orderDetail(argument, in: session)
            }
        }
        detail.subscriptions = try await subscriptions(of: detail.order)
        return detail
    }

    /// The subscriptions `order` started or paid a period of, as `receiptd subscriptions` shows them.
    func subscriptions(of order: OrderDetail.Order) async throws -> [SubscriptionSummary] {
        try await subscriptions(of: order.userID).filter { subscription in
            subscription.orderID == order.orderID || subscription.periods.contains { $0.orderID == order.orderID }
        }
    }

    /// `show`'s reads, in the caller's transaction (the console's order timeline reads more in the same snapshot).
    static func orderDetail(_ argument: String, in session: DatabaseSession) throws -> OrderDetail {
        let rows = try {
            // An order id first; a ledger id names the order it was delivered to.
            let orderID =
                try session.execute(
                    """
                    SELECT coalesce((SELECT order_id FROM iap.orders WHERE order_id = $1),
                                    (SELECT order_id FROM iap.deliveries WHERE transaction_id = $1
                                     ORDER BY delivered_at LIMIT 1)) AS order_id
                    """,
                    [argument]
                ).first?["order_id"] ?? argument
            let order = try session.execute(
                """
                SELECT order_id, user_id, product_id, quantity, delivered_quantity, outcome::text AS outcome,
                       \(Self.utc("created_at")) AS created_at, \(Self.utc("outcome_at")) AS outcome_at
                FROM iap.orders WHERE order_id = $1
                """,
                [orderID]
            )
            let jobs = try session.execute(
                """
                SELECT id, kind, state, attempts, environment, \(Self.utc("created_at")) AS created_at, \(Self.utc("run_at")) AS run_at,
                       \(Self.utc("started_at")) AS started_at, \(Self.utc("finished_at")) AS finished_at, last_error,
                       superseded_by, locked_by
                FROM iap.jobs WHERE order_id = $1 ORDER BY id
                """,
                [orderID]
            )
            let attempts = try session.execute(
                """
                SELECT job_id, attempt, result, apple_status, http_status, environment, duration_ms, error_class, error,
                       daemon, \(Self.utc("finished_at")) AS finished_at
                FROM iap.attempts WHERE order_id = $1 ORDER BY job_id, attempt, id
                """,
                [orderID]
            )
            let deliveries = try session.execute(
                """
                SELECT transaction_id, job_id, quantity, \(Self.utc("purchase_date")) AS purchase_date, environment,
                       \(Self.utc("delivered_at")) AS delivered_at, \(Self.utc("revoked_at")) AS revoked_at,
                       revocation_reason, revocation_percentage,
                       \(Self.utc("revocation_handled_at")) AS revocation_handled_at, revoked_quantity,
                       revocation_handled_quantity, product_kind, ownership, price::text AS price, currency, offer_type,
                       offer_id, purchase_option_id
                FROM iap.deliveries WHERE order_id = $1 ORDER BY delivered_at, transaction_id
                """,
                [orderID]
            )
            // About its ledger rows: by transaction id, or by original id (a ledger row's own id, or the
            // original id its first delivery recorded); Google's also by the purchase token of its jobs (a
            // purchase or a cancel recorded before the ledger id was known). One branch per index (migration 15):
            // an OR of the three read every notification.
            let notifications = try session.execute(
                """
                SELECT \(NotificationSummary.columns)
                FROM iap.store_notifications n
                WHERE n.id IN (
                    SELECT n.id FROM iap.deliveries d
                    JOIN iap.store_notifications n ON n.store = d.store AND n.transaction_id = d.transaction_id
                    WHERE d.order_id = $1
                    UNION
                    SELECT n.id FROM iap.store_notifications n
                    WHERE n.original_transaction_id IN (
                        SELECT d.transaction_id FROM iap.deliveries d WHERE d.order_id = $1
                        UNION SELECT o.original_transaction_id FROM iap.transaction_owners o WHERE o.order_id = $1)
                    UNION
                    SELECT n.id FROM iap.jobs j
                    JOIN iap.store_notifications n
                      ON n.store = 'google'
                     AND coalesce(n.payload #>> '{notification,oneTimeProductNotification,purchaseToken}',
                                  n.payload #>> '{notification,voidedPurchaseNotification,purchaseToken}') = j.receipt_data
                    WHERE j.order_id = $1 AND j.kind = '\(JobKind.googlePurchase.rawValue)')
                ORDER BY n.received_at, n.id
                """,
                [orderID]
            )
            let grant = try session.execute(
                """
                SELECT state, cause, product_id, quantity, job_id, \(Self.utc("created_at")) AS created_at,
                       \(Self.utc("granted_at")) AS granted_at, \(Self.utc("resolved_at")) AS resolved_at,
                       refuted_by::text AS refuted_by, replaced,
                       \(Self.utc("revocation_handled_at")) AS revocation_handled_at
                FROM iap.provisional_grants WHERE order_id = $1
                """,
                [orderID]
            )
            let webhooks = try Self.webhookEvents(ofOrder: orderID, in: session)
            let tokenCalls = try session.execute(
                """
                SELECT transaction_id, original_transaction_id, state, attempts, last_error,
                       \(Self.utc("sent_at")) AS sent_at
                FROM iap.app_account_token_calls WHERE order_id = $1 ORDER BY created_at, transaction_id
                """,
                [orderID]
            )
            return (order, jobs, attempts, deliveries, notifications, grant, webhooks, tokenCalls)
        }()
        guard let orderRow = rows.0.first else { throw OperatorError.notFound("no order \(argument)") }
        let attemptsByJob = try Dictionary(grouping: rows.2.namedRows, by: { try $0.int64("job_id") })
        return OrderDetail(
            order: try OrderDetail.Order(row: orderRow),
            jobs: try rows.1.namedRows.map { job in
                let log = try (attemptsByJob[try job.int64("id")] ?? []).map(OrderDetail.Attempt.init(row:))
                return try OrderDetail.Job(row: job, attemptLog: log)
            },
            deliveries: try rows.3.namedRows.map(OrderDetail.Delivery.init(row:)),
            notifications: try rows.4.namedRows.map(NotificationSummary.init(row:)),
            provisionalGrant: try rows.5.namedRows.first.map(OrderDetail.ProvisionalGrant.init(row:)),
            webhookEvents: rows.6,
            appAccountTokenCalls: try rows.7.namedRows.map { row in
                OrderDetail.AppAccountTokenCall(
                    transactionID: try row.string("transaction_id"),
                    originalTransactionID: try row.string("original_transaction_id"),
                    state: try row.string("state"),
                    attempts: try row.int("attempts"),
                    lastError: row["last_error"],
                    sentAt: row["sent_at"]
                )
            }
        )
    }
}
