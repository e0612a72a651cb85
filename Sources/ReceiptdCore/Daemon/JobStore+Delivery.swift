import Foundation

extension JobStore {
    /// Settles a verified receipt in one transaction: ledger rows, every touched order, the job, and the
    /// active jobs of orders this receipt completed. Writes nothing if the job is no longer ours.
    ///
    /// Two round trips: one pipeline locks and reads what the plan needs, the other writes it and commits.
    public func recordVerified(
        _ job: ClaimedJob, response: AppleVerifyResponse, environment: AppleEnvironment, planner: DeliveryPlanner,
        attempt: AttemptRecord
    ) async throws -> (Recording, DeliveryPlan?) {
        // A concurrent delivery of the same transaction (for another user) makes the plan stale: plan again.
        for _ in 0..<5 {
            do {
                return try await pool.withSession { [owner] session in
                    do {
                        return try Self.settle(job, owner: owner, response: response, environment: environment,
                                               planner: planner, attempt: attempt, in: session)
                    } catch {
                        // A lost connection makes ROLLBACK fail too; the server rolls back by itself then.
                        _ = try? session.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as PostgresError where error.isRetryableConflict || error.isUniqueViolation {
                continue
            }
        }
        throw PostgresError(kind: .query, message: "job \(job.id): gave up after repeated delivery conflicts")
    }

    private static func settle(
        _ job: ClaimedJob, owner: String, response: AppleVerifyResponse, environment: AppleEnvironment,
        planner: DeliveryPlanner, attempt: AttemptRecord, in session: DatabaseSession
    ) throws -> (Recording, DeliveryPlan?) {
        // Row sets from a jsonb parameter go through `= ANY (ARRAY(…))` wherever they meet a table: the
        // planner guesses 100 rows for a set-returning function and would scan the whole table for them.
        let transactions = response.allTransactions
        let ids = transactions.map(\.transactionID)
        let originals = transactions.map(\.originalTransactionID)
        let read = try session.pipeline([
            SQLStatement("BEGIN"),
            // Order rows before the job row, in order_id order: the order enqueue_receipt locks them in.
            SQLStatement("""
                SELECT order_id, product_id, quantity, delivered_quantity,
                       (extract(epoch FROM created_at) * 1000)::bigint AS created_ms
                FROM iap.orders
                WHERE user_id = $1 AND (outcome IS DISTINCT FROM 'full' OR order_id = $2)
                ORDER BY order_id
                FOR UPDATE
                """, [job.userID, job.order.orderID]),
            SQLStatement("SELECT 1 FROM iap.jobs WHERE id = $1 AND state = 'running' AND locked_by = $2 FOR UPDATE",
                         [job.id, owner]),
            SQLStatement(
                "SELECT transaction_id FROM iap.deliveries WHERE transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))",
                [JSONText.array(ids)]),
            SQLStatement("""
                SELECT original_transaction_id, user_id FROM iap.transaction_owners
                WHERE original_transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
                """, [JSONText.array(Array(Set(originals)))]),
        ])
        let snapshots = try read[1].namedRows.map { row in
            OrderSnapshot(
                orderID: try row.string("order_id"), productID: try row.string("product_id"), quantity: try row.int("quantity"),
                createdAtMilliseconds: Int64(try row.int("created_ms")), deliveredQuantity: try row.int("delivered_quantity"))
        }
        guard read[2].rows.count == 1, let order = snapshots.first(where: { $0.orderID == job.order.orderID }) else {
            try session.execute("ROLLBACK")
            return (.abandoned, nil)
        }
        let delivered = Set(read[3].rows.compactMap { $0[0] })
        let owners = Dictionary(try read[4].namedRows.map { (try $0.string("original_transaction_id"), try $0.string("user_id")) },
                                uniquingKeysWith: { first, _ in first })
        let plan = planner.plan(response, for: job.userID, order: order, otherOpenOrders: snapshots, alreadyDelivered: delivered,
                                firstOwners: owners)

        let products = Dictionary(snapshots.map { ($0.orderID, $0.productID) }, uniquingKeysWith: { first, _ in first })
        var writes = [settleStatement(job, owner: owner, plan: plan, products: products, environment: environment, attempt: attempt)]
        if !plan.foreignPurchases.isEmpty {
            let flagged = JSONText.rows(plan.foreignPurchases.map { foreign in
                [("original_id", .string(foreign.originalTransactionID)), ("owner", .string(foreign.ownerUserID))]
            })
            writes.append(SQLStatement("""
                INSERT INTO iap.foreign_transactions (job_id, order_id, user_id, original_transaction_id, owner_user_id)
                SELECT $2, $3, $4, f.original_id, f.owner FROM jsonb_to_recordset($1::jsonb) AS f(original_id text, owner text)
                ON CONFLICT DO NOTHING
                """, [flagged, job.id, job.order.orderID, job.userID]))
        }
        if !plan.ordersCompletedElsewhere.isEmpty {
            writes.append(SQLStatement("""
                WITH closed AS (
                    SELECT id, state FROM iap.jobs
                    WHERE order_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) AND state IN ('pending', 'running')
                    FOR UPDATE
                ), updated AS (
                    UPDATE iap.jobs j SET state = 'superseded', superseded_by = $2, finished_at = now(), locked_by = NULL
                    FROM closed WHERE j.id = closed.id
                    RETURNING j.id
                )
                SELECT pg_notify('iap_job_cancel', closed.id::text) FROM closed WHERE closed.state = 'running'
                """, [JSONText.array(plan.ordersCompletedElsewhere), job.id]))
        }
        writes.append(SQLStatement("COMMIT"))
        _ = try session.pipeline(writes)
        return (.recorded(.succeeded), plan)
    }

    /// The plan's writes as one statement: ledger rows, orders, the job and its attempt. The ledger insert
    /// has no ON CONFLICT: a transaction delivered meanwhile fails it with a unique violation, and the
    /// whole settle is planned again.
    ///
    /// Every order in the plan is the job's user's (`products` maps them to their products), so no row
    /// set here is joined to a table: the planner's guess for a jsonb row set made it scan whole tables.
    private static func settleStatement(
        _ job: ClaimedJob, owner: String, plan: DeliveryPlan, products: [String: String], environment: AppleEnvironment,
        attempt: AttemptRecord
    ) -> SQLStatement {
        let deliveries = JSONText.rows(plan.deliveries.map { delivery in
            [("transaction_id", .string(delivery.transactionID)), ("order_id", .string(delivery.orderID)),
             ("product_id", .string(products[delivery.orderID] ?? "")), ("quantity", .int(Int64(delivery.quantity))),
             ("purchase_ms", .int(delivery.purchaseDateMilliseconds))]
        })
        let owners = JSONText.rows(plan.newOwners.map { delivery in
            [("original_id", .string(delivery.originalTransactionID)), ("order_id", .string(delivery.orderID))]
        })
        let flag = plan.foreignPurchases.isEmpty ? nil : "receipt carries purchases first delivered to another user: "
            + plan.foreignPurchases.map { "\($0.originalTransactionID) (user \($0.ownerUserID))" }.joined(separator: ", ")
        let results = JSONText.rows(plan.orderResults.map { result in
            [("order_id", .string(result.orderID)), ("delivered", .int(Int64(result.deliveredQuantity))),
             ("outcome", .string(result.outcome.rawValue))]
        })
        return SQLStatement("""
            WITH ledger AS (
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment, job_id)
                SELECT d.transaction_id, d.order_id, $8, d.product_id, d.quantity, to_timestamp(d.purchase_ms / 1000.0), $2, $3
                FROM jsonb_to_recordset($1::jsonb)
                     AS d(transaction_id text, order_id text, product_id text, quantity int, purchase_ms bigint)
            ), paid AS (
                -- user_id and the open-order test match the orders_user_open index: the user's few rows.
                UPDATE iap.orders o SET delivered_quantity = r.delivered, outcome = r.outcome::iap.outcome, outcome_at = now()
                FROM jsonb_to_recordset($4::jsonb) AS r(order_id text, delivered int, outcome text)
                WHERE o.user_id = $8 AND o.outcome IS DISTINCT FROM 'full' AND o.order_id = r.order_id
            ), owners AS (
                -- No ON CONFLICT: another user's delivery of the same purchase meanwhile fails this, and the settle
                -- is planned again with that owner known.
                INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id)
                SELECT n.original_id, $8, n.order_id FROM jsonb_to_recordset($9::jsonb) AS n(original_id text, order_id text)
            ), finished AS (
                UPDATE iap.jobs SET state = 'succeeded', finished_at = now(), environment = $2, last_error = $10,
                    locked_by = NULL, heartbeat_at = NULL
                WHERE id = $3
            )
            INSERT INTO iap.attempts \(attemptColumns) VALUES ($3, $5, $6, $7, \(attemptValues(from: 11)))
            """, [deliveries, environment.rawValue, job.id, results,
                  job.order.orderID, job.attempts, owner, job.userID, owners, flag] + attempt.parameters)
    }
}
