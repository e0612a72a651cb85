extension OperatorQueries {
    /// The order a `JOB|ORDER` argument names: a number that is a job id means that job's order,
    /// anything else (or a number that is no job id) an order id. Throws `OperatorError.notFound`.
    package func orderID(for reference: String) async throws -> String {
        if let jobID = Int64(reference),
            let order = try await connection.execute("SELECT order_id FROM iap.jobs WHERE id = $1", [jobID]).first?[
                "order_id"
            ]
        {
            return order
        }
        let known = try await connection.execute("SELECT order_id FROM iap.orders WHERE order_id = $1", [reference])
        guard let order = known.first?["order_id"] else {
            throw OperatorError.notFound("no job or order \(reference)")
        }
        return order
    }

    /// `iap.retry_order`: a fresh pending job with the latest receipt for the order `reference` names.
    /// Throws `OperatorError.refused` when the order is full or already has an active job.
    package func retry(_ reference: String) async throws -> RetryResult {
        try await retryOrder(try await orderID(for: reference))
    }

    /// `iap.retry_order` for `orderID` taken as an order id, never as a job id (the console's forms name orders,
    /// and an order id may be a number that is also some job's id).
    package func retry(orderID: String) async throws -> RetryResult {
        try await retryOrder(orderID)
    }

    /// A fresh job for every order whose outcome became `failed` or `invalid` since `since`, each in its own
    /// transaction; orders the database refuses (an active job, say) are listed as skipped.
    package func retryFailed(since: TimeBound) async throws -> BulkRetryResult {
        let orders = try await connection.execute(
            """
            SELECT order_id FROM iap.orders
            WHERE outcome IN ('failed', 'invalid')
              AND outcome_at >= coalesce($1::timestamptz, now() - make_interval(secs => $2::int))
            ORDER BY outcome_at, order_id
            """,
            [since.instantText, since.secondsAgoValue]
        ).rows.compactMap { $0.first ?? nil }
        var summary = BulkRetryResult(retried: [], skipped: [])
        for order in orders {
            do {
                summary.retried.append(try await retryOrder(order))
            } catch let refusal as OperatorError {
                summary.skipped.append(.init(orderID: order, reason: refusal.description))
            }
        }
        return summary
    }

    /// `iap.cancel_order` for the order `reference` names; throws `OperatorError.refused` when it has no active job.
    package func cancel(_ reference: String) async throws -> CancelResult {
        try await cancel(orderID: try await orderID(for: reference))
    }

    /// `iap.cancel_order` for `orderID` taken as an order id, never as a job id (as `retry(orderID:)`).
    package func cancel(orderID order: String) async throws -> CancelResult {
        let cancelled = try await audited(.cancel, target: order, orderID: order) { session -> Int64? in
            let count = try session.execute("SELECT iap.cancel_order($1) AS n", [order]).first?.int("n") ?? 0
            guard count > 0 else { return nil }
            return try session.execute(
                """
                SELECT id FROM iap.jobs WHERE order_id = $1 AND state = 'cancelled' ORDER BY finished_at DESC, id DESC LIMIT 1
                """,
                [order]
            ).first?.int64("id")
        }
        guard let cancelled else {
            throw OperatorError.refused("order \(order) has no pending or running job to cancel")
        }
        return CancelResult(orderID: order, jobID: cancelled)
    }

    /// `iap.enqueue_receipt`; throws `OperatorError.refused` when it rejects the input.
    package func enqueue(_ request: EnqueueRequest) async throws -> EnqueueResult {
        let result = try await translatingRefusals {
            try await connection.execute(
                "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5) AS id",
                [
                    request.orderID, request.userID, request.productID, request.compactReceiptData, request.quantity,
                ]
            )
        }
        return EnqueueResult(orderID: request.orderID, jobID: try Self.jobID(in: result, from: "enqueue_receipt"))
    }

    /// `iap.retry_order` for an order id taken as it is (bulk retries must not read it as a job id).
    private func retryOrder(_ order: String) async throws -> RetryResult {
        let result = try await audited(.retry, target: order, orderID: order) { session in
            try session.execute("SELECT iap.retry_order($1) AS id", [order])
        }
        return RetryResult(orderID: order, jobID: try Self.jobID(in: result, from: "retry_order"))
    }

    private static func jobID(in result: QueryResult, from function: String) throws -> Int64 {
        guard let id = result.first?["id"].flatMap({ Int64($0) }) else {
            throw PostgresError(kind: .query, message: "\(function) returned no job id")
        }
        return id
    }

    /// Runs `body`, turning the operator functions' SQLSTATEs into `OperatorError`s.
    func translatingRefusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError {
            throw OperatorError(error) ?? error
        }
    }
}
