/// What `receiptd status` shows: the queue by state, retries of the last hour, stuck jobs, recent failures.
public struct QueueStatus: Sendable, Codable, Equatable {
    /// One row of `iap.queue_summary`.
    public struct StateCount: Sendable, Codable, Equatable {
        /// The job state.
        public var state: JobState
        /// Jobs in this state.
        public var jobs: Int
        /// Pending jobs whose `run_at` has come.
        public var dueNow: Int
        /// Seconds since the oldest due pending job became due.
        public var oldestDueSeconds: Int?
        /// Seconds since the stalest running job's heartbeat.
        public var oldestHeartbeatSeconds: Int?
    }

    /// One row of `iap.recent_retries`.
    public struct RetryCount: Sendable, Codable, Equatable {
        /// `transport`, `http`, `garbled`, …
        public var errorClass: String
        /// Attempts with result `retry` in the last hour.
        public var retries: Int
        /// Distinct jobs those attempts belong to.
        public var jobs: Int
        /// When the latest of them finished (ISO-8601, UTC).
        public var lastSeen: String
    }

    /// One row of `iap.stuck_jobs`.
    public struct StuckJob: Sendable, Codable, Equatable {
        /// `iap.jobs.id`; nil for a row about no one job (`voided_poll_failing`, `api_blocked`).
        public var jobID: Int64?
        /// The job's order; nil as `jobID`.
        public var orderID: String?
        /// `running` or `pending`; nil as `jobID`.
        public var state: JobState?
        /// `lease_expired` (running, its heartbeat and its daemon's over 60 s old), `overrun` (running far longer
        /// than an attempt may, its daemon still heartbeating), `overdue` (pending, due over 5 minutes ago),
        /// `acknowledgement_owed`, `voided_poll_failing` (no successful voided-purchases poll for a day) or
        /// `api_blocked` (an API asked not to be called for over a minute more).
        public var reason: String
        /// Seconds since the heartbeat or since the job became due; for `api_blocked`, how long the block still lasts.
        public var stuckSeconds: Int
        /// Attempts so far.
        public var attempts: Int
        /// The daemon holding a running job.
        public var lockedBy: String?
        /// The job's last error.
        public var lastError: String?
    }

    /// Orders by outcome (`none` for orders not settled yet).
    public struct OutcomeCount: Sendable, Codable, Equatable {
        /// An `iap.outcome` value, or `none`.
        public var outcome: String
        /// Orders with it.
        public var orders: Int
    }

    /// Orders by `status` (`pending`, `verified`, `finished`, `closed`).
    public struct StatusCount: Sendable, Codable, Equatable {
        /// An `iap.order_status` value.
        public var status: String
        /// Orders with it.
        public var orders: Int
    }

    /// A daemon that has heartbeated into `iap.daemons`.
    public struct Daemon: Sendable, Codable, Equatable {
        /// Its identity, `host:pid:start-id` (the `locked_by` of its jobs).
        public var daemon: String
        /// Seconds since its last heartbeat.
        public var heartbeatAgeSeconds: Int
        /// Requests it had in flight then.
        public var inFlight: Int
        /// True when the heartbeat is under `OperatorQueries.aliveWithinSeconds` old.
        public var alive: Bool
        /// The store APIs (`verify_receipt`, `server_api`, `google_play`) whose jobs its claims skip, because
        /// that API is failing (`iap.daemons.paused_apis`).
        public var pausedAPIs: [String]
    }

    /// An API that asked not to be called (HTTP 429 with `Retry-After`) and is still blocked.
    public struct BlockedAPI: Sendable, Codable, Equatable {
        /// The `iap.api_pacing` row (`apple_server_api`).
        public var api: String
        /// When the block ends (ISO-8601, UTC).
        public var blockedUntil: String
        /// Seconds until then.
        public var remainingSeconds: Int
    }

    /// The Google voided-purchases poll of one package (`iap.google_voided_cursor`).
    public struct VoidedPoll: Sendable, Codable, Equatable {
        /// The package polled.
        public var packageName: String
        /// Seconds since the last successful poll; nil when none has succeeded.
        public var lastSuccessSeconds: Int?
        /// The last failure's message, when the last attempt failed.
        public var lastError: String?
        /// Seconds for which no poller could take the poll's advisory lock, when that is over three poll intervals.
        public var lockMissingSeconds: Int?
        /// Who holds that lock then: sessions as `pid 123, user receiptd_app, application_name psql`.
        public var lockHolders: [String]
    }

    /// Every job state, in lifecycle order, including those with no jobs.
    public var states: [StateCount]
    /// Orders by outcome.
    public var outcomes: [OutcomeCount]
    /// Orders by status, all four always present.
    public var statuses: [StatusCount]
    /// Ledger rows delivered over 10 minutes ago that the game has not confirmed granting: a game that stopped granting.
    public var owedOverTenMinutes: Int
    /// Unclaimed payments not yet assigned to an order.
    public var unclaimedPayments: Int
    /// Orders paid beyond their quantity (a transaction of more units than ordered).
    public var overpaidOrders: Int
    /// Daemons by heartbeat, most recent first.
    public var daemons: [Daemon]
    /// Retries of the last hour by error class, most frequent first.
    public var retriesLastHour: [RetryCount]
    /// The longest-stuck jobs, at most `OperatorQueries.stuckListLimit`.
    public var stuckJobs: [StuckJob]
    /// How many jobs are stuck in all.
    public var stuckTotal: Int
    /// Rows of `iap.recent_failures`: failed jobs and invalid/failed orders of the last 24 hours.
    public var recentFailures: Int
    /// Ledger rows delivered from production receipts.
    public var productionDeliveries: Int
    /// Ledger rows delivered from sandbox receipts (testers' and App Review's purchases).
    public var sandboxDeliveries: Int
    /// Jobs of the last 24 hours whose receipts carried purchases first delivered to another user
    /// (`iap.suspicious_receipts`).
    public var suspiciousReceipts: Int
    /// APIs blocked by a `Retry-After` right now.
    public var blockedAPIs: [BlockedAPI] = []
    /// The voided-purchases poll of each package that has one.
    public var voidedPolls: [VoidedPoll] = []

    /// The number of jobs in `state`.
    public func jobs(in state: JobState) -> Int {
        states.first { $0.state == state }?.jobs ?? 0
    }
}
