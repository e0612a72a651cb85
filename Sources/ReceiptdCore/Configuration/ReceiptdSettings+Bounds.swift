extension ReceiptdSettings {
    /// The largest value each number and duration setting takes (the Configuration article). Larger ones are refused at
    /// start (exit 78): past them the arithmetic done with a value overflows (a poll interval of 1e30 seconds)
    /// or PostgreSQL's timestamps run out (a retention of 9,999,999 days), and no deployment needs more.
    package enum Bounds {
        /// `RECEIPTD_CONCURRENCY`: requests in flight per process.
        package static let concurrency = 4096
        /// `RECEIPTD_DB_CONNECTIONS`: PostgreSQL's own default allows 100 connections in all.
        package static let databaseConnections = 512
        /// `RECEIPTD_MAX_ATTEMPTS`.
        package static let maxAttempts = 1000
        /// `APPLE_SERVER_API_RATE`, requests per second.
        package static let serverAPIRate = 10_000
        /// `RECEIPTD_BACKOFF_BASE` and `RECEIPTD_BACKOFF_MAX`: a day.
        package static let backoff: Duration = .seconds(86_400)
        /// `RECEIPTD_POLL_INTERVAL`: an hour.
        package static let pollInterval: Duration = .seconds(3600)
        /// `RECEIPTD_PURCHASE_SKEW`: a day.
        package static let purchaseSkew: Duration = .seconds(86_400)
        /// `RECEIPTD_LEASE`: a day.
        package static let lease: Duration = .seconds(86_400)
        /// `RECEIPTD_SHUTDOWN_GRACE`: an hour.
        package static let shutdownGrace: Duration = .seconds(3600)
        /// `RECEIPTD_APPLE_TIMEOUT`: ten minutes.
        package static let appleTimeout: Duration = .seconds(600)
        /// `RECEIPTD_RETENTION`: ten years (3650 days).
        package static let retention: Duration = .seconds(3650 * 86_400)
        /// `GOOGLE_PLAY_VOIDED_INTERVAL`: a day (Google lists 30 days back, and a lock missed for three intervals shows).
        package static let voidedInterval: Duration = .seconds(86_400)
        /// `GOOGLE_PLAY_FINALIZE_OVERDUE`: three days, when Google refunds what was not acknowledged.
        package static let finalizeOverdue: Duration = .seconds(3 * 86_400)
        /// `APPLE_NOTIFICATION_HISTORY_INTERVAL`: a day (Apple keeps 179 days of history, and each poll overlaps
        /// the last by an hour).
        package static let notificationHistoryInterval: Duration = .seconds(86_400)
        /// `RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL`: a week.
        package static let subscriptionReadRetryInterval: Duration = .seconds(7 * 86_400)
        /// `RECEIPTD_TRUST_RESTORE_AFTER`, orders in a row.
        package static let restoreAfter = 1000
        /// `RECEIPTD_PROVISIONAL_AFTER`: a day.
        package static let provisionalAfter: Duration = .seconds(86_400)
        /// `RECEIPTD_PROVISIONAL_LIMIT`, unconfirmed grants per player.
        package static let provisionalLimit = 1000
    }
}
