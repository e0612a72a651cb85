/// One line of `receiptd jobs`.
package struct JobSummary: Sendable, Codable, Equatable {
    /// `iap.jobs.id`.
    package var id: Int64
    /// The job's order.
    package var orderID: String
    /// The order's user.
    package var userID: String
    /// The order's product.
    package var productID: String
    /// The job's state.
    package var state: JobState
    /// Attempts so far.
    package var attempts: Int
    /// The order's outcome, if settled.
    package var outcome: String?
    /// When the job was created (ISO-8601, UTC; so are the other times).
    package var createdAt: String
    /// When a pending job is due.
    package var runAt: String
    /// When the job finished.
    package var finishedAt: String?
    /// The latest error.
    package var lastError: String?
}

extension JobSummary {
    /// Reads a row of the `jobs` query.
    init(row: QueryResult.Row) throws {
        self.init(
            id: try row.int64("id"),
            orderID: try row.string("order_id"),
            userID: try row.string("user_id"),
            productID: try row.string("product_id"),
            state: try row.jobState(),
            attempts: try row.int("attempts"),
            outcome: row["outcome"],
            createdAt: try row.string("created_at"),
            runAt: try row.string("run_at"),
            finishedAt: row["finished_at"],
            lastError: row["last_error"]
        )
    }
}
