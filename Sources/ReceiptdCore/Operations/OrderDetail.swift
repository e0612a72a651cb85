/// What `receiptd show ORDER` shows: the order, each job with each of its attempts, and the ledger rows.
public struct OrderDetail: Sendable, Codable, Equatable {
    /// The `iap.orders` row. Times are ISO-8601, UTC, throughout.
    public struct Order: Sendable, Codable, Equatable {
        /// `order_id`.
        public var orderID: String
        /// The paying user.
        public var userID: String
        /// The product bought.
        public var productID: String
        /// Units ordered.
        public var quantity: Int
        /// Units delivered so far.
        public var deliveredQuantity: Int
        /// `full`, `partial`, … or `nil` while unsettled.
        public var outcome: String?
        /// When the order was first enqueued.
        public var createdAt: String
        /// When the outcome was last set.
        public var outcomeAt: String?
    }

    /// One `iap.jobs` row, oldest first.
    public struct Job: Sendable, Codable, Equatable {
        /// `iap.jobs.id`.
        public var id: Int64
        /// What it verifies: a receipt or a StoreKit 2 transaction.
        public var kind: JobKind
        /// The job's state.
        public var state: JobState
        /// Attempts counted so far.
        public var attempts: Int
        /// The Apple environment of the final answer.
        public var environment: String?
        /// When the job was created.
        public var createdAt: String
        /// When a pending job is due.
        public var runAt: String
        /// When it last started running.
        public var startedAt: String?
        /// When it finished.
        public var finishedAt: String?
        /// The latest error.
        public var lastError: String?
        /// The job that replaced it.
        public var supersededBy: Int64?
        /// The daemon running it.
        public var lockedBy: String?
        /// Its rows of `iap.attempts`, in order.
        public var attemptLog: [Attempt]
    }

    /// One `iap.attempts` row.
    public struct Attempt: Sendable, Codable, Equatable {
        /// 1 for the first attempt.
        public var attempt: Int
        /// `verified`, `retry`, `rejected` or `abandoned`.
        public var result: String
        /// Apple's JSON status, if Apple answered with JSON.
        public var appleStatus: Int?
        /// The HTTP status, if an HTTP answer came.
        public var httpStatus: Int?
        /// The Apple environment that answered.
        public var environment: String?
        /// How long the attempt took.
        public var durationMs: Int
        /// `transport`, `http`, `garbled`, …
        public var errorClass: String?
        /// What went wrong.
        public var error: String?
        /// The daemon that made it.
        public var daemon: String?
        /// When it finished.
        public var finishedAt: String
    }

    /// One `iap.deliveries` row of this order.
    public struct Delivery: Sendable, Codable, Equatable {
        /// Apple's transaction id, the ledger key.
        public var transactionID: String
        /// The job whose receipt delivered it.
        public var jobID: Int64?
        /// Units applied to the order.
        public var quantity: Int
        /// When the purchase was made.
        public var purchaseDate: String?
        /// `Production` or `Sandbox`.
        public var environment: String?
        /// When it was delivered.
        public var deliveredAt: String
    }

    /// The order.
    public var order: Order
    /// Its jobs, oldest first.
    public var jobs: [Job]
    /// Its deliveries, oldest first.
    public var deliveries: [Delivery]
}
