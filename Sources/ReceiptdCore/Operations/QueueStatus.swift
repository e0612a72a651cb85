/// What `receiptd status` shows: the queue by state, retries of the last hour, stuck jobs, recent failures.
package struct QueueStatus: Sendable, Codable, Equatable {
    /// One row of `iap.queue_summary`.
    package struct StateCount: Sendable, Codable, Equatable {
        /// The job state.
        package var state: JobState
        /// Jobs in this state.
        package var jobs: Int
        /// Pending jobs whose `run_at` has come.
        package var dueNow: Int
        /// Seconds since the oldest due pending job became due.
        package var oldestDueSeconds: Int?
        /// Seconds since the stalest running job's heartbeat.
        package var oldestHeartbeatSeconds: Int?
    }

    /// One row of `iap.recent_retries`.
    package struct RetryCount: Sendable, Codable, Equatable {
        /// `transport`, `http`, `garbled`, …
        package var errorClass: String
        /// Attempts with result `retry` in the last hour.
        package var retries: Int
        /// Distinct jobs those attempts belong to.
        package var jobs: Int
        /// When the latest of them finished (ISO-8601, UTC).
        package var lastSeen: String
    }

    /// One row of `iap.stuck_jobs`.
    package struct StuckJob: Sendable, Codable, Equatable {
        /// `iap.jobs.id`; nil for a row about no one job (`voided_poll_failing`, `api_blocked`).
        package var jobID: Int64?
        /// The job's order; nil as `jobID`.
        package var orderID: String?
        /// `running` or `pending`; nil as `jobID`.
        package var state: JobState?
        /// `lease_expired` (running, its heartbeat and its daemon's over 60 s old), `overrun` (running far longer
        /// than an attempt may, its daemon still heartbeating), `overdue` (pending, due over 5 minutes ago),
        /// `acknowledgement_owed`, `voided_poll_failing` (no successful voided-purchases poll for a day),
        /// `api_blocked` (an API asked not to be called for over a minute more), `refund_answer_late` (a
        /// store's refund request not answered an hour before its deadline), `webhook_failing`, or
        /// `provisional_unconfirmed` (a provisional grant unconfirmed while no job of its order is active), or
        /// `subscription_read_failing` (the store refuses a subscription's re-read for good; its checkout's order).
        package var reason: String
        /// Seconds since the heartbeat or since the job became due; for `api_blocked`, how long the block still lasts.
        package var stuckSeconds: Int
        /// Attempts so far.
        package var attempts: Int
        /// The daemon holding a running job.
        package var lockedBy: String?
        /// The job's last error.
        package var lastError: String?
    }

    /// Orders by outcome (`none` for orders not settled yet).
    package struct OutcomeCount: Sendable, Codable, Equatable {
        /// An `iap.outcome` value, or `none`.
        package var outcome: String
        /// Orders with it.
        package var orders: Int
    }

    /// Orders by `status` (`pending`, `verified`, `finished`, `closed`).
    package struct StatusCount: Sendable, Codable, Equatable {
        /// An `iap.order_status` value.
        package var status: String
        /// Orders with it.
        package var orders: Int
    }

    /// A daemon that has heartbeated into `iap.daemons`.
    package struct Daemon: Sendable, Codable, Equatable {
        /// Its identity, `host:pid:start-id` (the `locked_by` of its jobs).
        package var daemon: String
        /// Seconds since its last heartbeat.
        package var heartbeatAgeSeconds: Int
        /// Requests it had in flight then.
        package var inFlight: Int
        /// True when the heartbeat is under `OperatorQueries.aliveWithinSeconds` old.
        package var alive: Bool
        /// The store APIs (`verify_receipt`, `server_api`, `google_play`) whose jobs its claims skip, because
        /// that API is failing (`iap.daemons.paused_apis`).
        package var pausedAPIs: [String]
    }

    /// An API endpoint that asked not to be called (HTTP 429 with `Retry-After`) and is still blocked.
    package struct BlockedAPI: Sendable, Codable, Equatable {
        /// The `iap.api_pacing` row: an App Store Server API endpoint (`apple_transaction_info`,
        /// `apple_subscription_statuses`, …; see `AppStoreServerEndpoint`).
        package var api: String
        /// When the block ends (ISO-8601, UTC).
        package var blockedUntil: String
        /// Seconds until then.
        package var remainingSeconds: Int
    }

    /// The Google voided-purchases poll of one package (`iap.google_voided_cursor`).
    package struct VoidedPoll: Sendable, Codable, Equatable {
        /// The package polled.
        package var packageName: String
        /// Seconds since the last successful poll; nil when none has succeeded.
        package var lastSuccessSeconds: Int?
        /// The last failure's message, when the last attempt failed.
        package var lastError: String?
        /// Seconds for which no poller could take the poll's advisory lock, when that is over three poll intervals.
        package var lockMissingSeconds: Int?
        /// Who holds that lock then: sessions as `pid 123, user receiptd_app, application_name psql`.
        package var lockHolders: [String]
    }

    /// The last `TEST` notification of one environment: Apple sends one on "Request a Test Notification".
    package struct TestNotification: Sendable, Codable, Equatable {
        /// `Production` or `Sandbox`.
        package var environment: String
        /// When it was received (ISO-8601, UTC); `nil` when none ever was.
        package var receivedAt: String?
        /// `push` (the intake's URL works) or `history` (only the catch-up found it).
        package var source: String?
    }

    /// Every job state, in lifecycle order, including those with no jobs.
    package var states: [StateCount]
    /// Orders by outcome.
    package var outcomes: [OutcomeCount]
    /// Orders by status, all four always present.
    package var statuses: [StatusCount]
    /// Ledger rows delivered over 10 minutes ago that the game has not confirmed granting: a game that stopped granting.
    package var owedOverTenMinutes: Int
    /// Unclaimed payments not yet assigned to an order.
    package var unclaimedPayments: Int
    /// Orders paid beyond their quantity (a transaction of more units than ordered).
    package var overpaidOrders: Int
    /// Daemons by heartbeat, most recent first.
    package var daemons: [Daemon]
    /// Retries of the last hour by error class, most frequent first.
    package var retriesLastHour: [RetryCount]
    /// The longest-stuck jobs, at most `OperatorQueries.stuckListLimit`.
    package var stuckJobs: [StuckJob]
    /// How many jobs are stuck in all.
    package var stuckTotal: Int
    /// Rows of `iap.recent_failures`: failed jobs and invalid/failed orders of the last 24 hours.
    package var recentFailures: Int
    /// Ledger rows delivered from production receipts.
    package var productionDeliveries: Int
    /// Ledger rows delivered from sandbox receipts (testers' and App Review's purchases).
    package var sandboxDeliveries: Int
    /// Jobs of the last 24 hours whose receipts carried purchases first delivered to another user
    /// (`iap.suspicious_receipts`).
    package var suspiciousReceipts: Int
    /// Pending jobs waiting for their store to be configured (no App Store Server API key, no Google Play
    /// service account): they use up no attempts, and their `last_error` names the setting.
    package var waitingForStoreConfiguration = 0
    /// APIs blocked by a `Retry-After` right now.
    package var blockedAPIs: [BlockedAPI] = []
    /// The voided-purchases poll of each package that has one.
    package var voidedPolls: [VoidedPoll] = []
    /// Ledger rows revoked over 10 minutes ago that the game has not marked handled, and rows whose units Google's
    /// partial refunds revoked over 10 minutes ago (the last refund's `recorded_at`) with units still unhandled:
    /// a game that does not take refunds back.
    package var revocationsUnhandledOverTenMinutes = 0
    /// The last `TEST` notification of `Production` and of `Sandbox`, both always present.
    package var lastTestNotifications: [TestNotification] = []
    /// The earliest `acknowledge_by` of the Google payments not yet assigned (ISO-8601, UTC): Google refunds that
    /// one then unless it is assigned. `nil` when there is none.
    package var nextGoogleRefundOfUnclaimed: String? = nil
    /// When the last Google `TEST` notification was received (ISO-8601, UTC): Play Console's "Send test
    /// notification" reached the intake through Pub/Sub. `nil` when none ever was.
    package var lastGoogleTestNotification: String? = nil
    /// Store notifications recorded and not yet processed.
    package var unprocessedNotifications = 0
    /// Seconds since the oldest of them was received; `nil` when there is none.
    package var oldestUnprocessedNotificationSeconds: Int? = nil
    /// Refund requests not answered an hour before their deadline (`answer_by`).
    package var refundAnswersLate = 0
    /// Provisional grants unconfirmed now, confirmed and refuted in the last 24 hours.
    package var provisionalGrants = TrustFigures.Grants()
    /// Players whose `iap.user_trust` row says untrusted, by store.
    package var untrustedUsers = TrustFigures.UntrustedUsers()
    /// Subscriptions by state, and those whose re-read is over a minute late.
    package var subscriptions = SubscriptionFigures()
    /// The webhook endpoint and its events: pending, failed, the oldest pending, delivered in the last hour.
    package var webhooks = WebhookFigures()
    /// Catalogue products whose kind the store states otherwise than the game declared (the store's is used).
    package var productKindMismatches: [CatalogueProduct] = []

    /// The number of jobs in `state`.
    package func jobs(in state: JobState) -> Int {
        states.first { $0.state == state }?.jobs ?? 0
    }
}
