import Foundation

extension JobStore {
    /// Settles a verified receipt in one transaction: ledger rows, every touched order, the job, and the
    /// active jobs of orders this receipt completed. Writes nothing if the job is no longer ours.
    public func recordVerified(
        _ job: ClaimedJob, response: AppleVerifyResponse, environment: AppleEnvironment, planner: DeliveryPlanner,
        attempt: AttemptRecord
    ) async throws -> (Recording, DeliveryPlan?) {
        // A concurrent delivery of the same transaction for another user makes the plan stale: plan again.
        for _ in 0..<5 {
            do {
                return try await pool.withSession { [owner] session in
                    try session.transaction { session in
                        try Self.settle(job, owner: owner, response: response, environment: environment, planner: planner,
                                        attempt: attempt, in: session)
                    }
                }
            } catch let error as PostgresError where error.isRetryableConflict {
                continue
            } catch StalePlan.conflict {
                continue
            }
        }
        throw PostgresError(kind: .query, message: "job \(job.id): gave up after repeated delivery conflicts")
    }

    private enum StalePlan: Error { case conflict }

    private static func settle(
        _ job: ClaimedJob, owner: String, response: AppleVerifyResponse, environment: AppleEnvironment,
        planner: DeliveryPlanner, attempt: AttemptRecord, in session: DatabaseSession
    ) throws -> (Recording, DeliveryPlan?) {
        // Lock order rows before the job row, in order_id order: the same order enqueue_receipt uses.
        let orders = try session.execute("""
            SELECT order_id, product_id, quantity, delivered_quantity,
                   (extract(epoch FROM created_at) * 1000)::bigint AS created_ms
            FROM iap.orders
            WHERE user_id = $1 AND (outcome IS DISTINCT FROM 'full' OR order_id = $2)
            ORDER BY order_id
            FOR UPDATE
            """, [job.userID, job.order.orderID]).namedRows
        let ours = try session.execute(
            "SELECT 1 FROM iap.jobs WHERE id = $1 AND state = 'running' AND locked_by = $2 FOR UPDATE", [job.id, owner])
        guard ours.rows.count == 1 else { return (.abandoned, nil) }

        let snapshots = try orders.map { row in
            OrderSnapshot(
                orderID: try row.string("order_id"), productID: try row.string("product_id"), quantity: try row.int("quantity"),
                createdAtMilliseconds: Int64(try row.int("created_ms")), deliveredQuantity: try row.int("delivered_quantity"))
        }
        guard let order = snapshots.first(where: { $0.orderID == job.order.orderID }) else { return (.abandoned, nil) }

        let ids = response.allTransactions.map(\.transactionID)
        let delivered = Set(try session.execute(
            "SELECT transaction_id FROM iap.deliveries WHERE transaction_id = ANY (SELECT jsonb_array_elements_text($1::jsonb))",
            [JSONText.encode(ids)]).rows.compactMap { $0[0] })
        let plan = planner.plan(response, order: order, otherOpenOrders: snapshots, alreadyDelivered: delivered)

        if !plan.deliveries.isEmpty {
            let rows = plan.deliveries.map { delivery -> [String: Any] in
                ["transaction_id": delivery.transactionID, "order_id": delivery.orderID, "quantity": delivery.quantity,
                 "purchase_ms": delivery.purchaseDateMilliseconds]
            }
            let inserted = try session.execute("""
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id)
                SELECT d.transaction_id, d.order_id, o.user_id, o.product_id, d.quantity,
                       to_timestamp(d.purchase_ms / 1000.0), $2, $3
                FROM jsonb_to_recordset($1::jsonb) AS d(transaction_id text, order_id text, quantity int, purchase_ms bigint)
                JOIN iap.orders o ON o.order_id = d.order_id
                ON CONFLICT (transaction_id) DO NOTHING
                """, [JSONText.encode(rows), environment.rawValue, job.id])
            guard inserted.affectedRows == plan.deliveries.count else { throw StalePlan.conflict }
        }
        let results = plan.orderResults.map { result -> [String: Any] in
            ["order_id": result.orderID, "delivered": result.deliveredQuantity, "outcome": result.outcome.rawValue]
        }
        try session.execute("""
            UPDATE iap.orders o SET delivered_quantity = r.delivered, outcome = r.outcome::iap.outcome, outcome_at = now()
            FROM jsonb_to_recordset($1::jsonb) AS r(order_id text, delivered int, outcome text)
            WHERE o.order_id = r.order_id AND o.outcome IS DISTINCT FROM 'full'
            """, [JSONText.encode(results)])
        try session.execute("""
            UPDATE iap.jobs SET state = 'succeeded', finished_at = now(), environment = $2, last_error = NULL,
                locked_by = NULL, heartbeat_at = NULL
            WHERE id = $1
            """, [job.id, environment.rawValue])
        try session.execute("INSERT INTO iap.attempts \(attemptColumns) VALUES ($1, $2, $3, $4, \(attemptValues(from: 5)))",
                            [job.id, job.order.orderID, job.attempts, owner] + attempt.parameters)
        if !plan.ordersCompletedElsewhere.isEmpty {
            try session.execute("""
                WITH closed AS (
                    SELECT id, state FROM iap.jobs
                    WHERE order_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND state IN ('pending', 'running')
                    FOR UPDATE
                ), updated AS (
                    UPDATE iap.jobs j SET state = 'superseded', superseded_by = $2, finished_at = now(), locked_by = NULL
                    FROM closed WHERE j.id = closed.id
                    RETURNING j.id
                )
                SELECT pg_notify('iap_job_cancel', closed.id::text) FROM closed WHERE closed.state = 'running'
                """, [JSONText.encode(plan.ordersCompletedElsewhere), job.id])
        }
        return (.recorded(state: "succeeded"), plan)
    }
}
