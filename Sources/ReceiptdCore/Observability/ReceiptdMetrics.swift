import CoreMetrics

/// The daemon's metrics, with their names and labels in one place; backed by whatever swift-metrics
/// factory it is given (the bootstrapped Prometheus one in production, a private registry in tests).
///
/// Label values are small fixed vocabularies (states, outcomes, error classes), never ids.
package struct ReceiptdMetrics: Sendable {
    /// The Prometheus metric names.
    package enum Name {
        /// Counter: jobs taken by claim statements.
        package static let jobsClaimed = "receiptd_jobs_claimed_total"
        /// Counter by `state` (`succeeded`, `failed`, …) and `outcome` (an `iap.outcome`, or `none`).
        package static let jobsFinished = "receiptd_jobs_finished_total"
        /// Histogram by `environment`, `api`, `store` and `result`: seconds per store call.
        package static let appleRequestDuration = "receiptd_apple_request_duration_seconds"
        /// Counter by `error_class`: attempts that ended in a transient failure and will be retried.
        package static let retries = "receiptd_retries_total"
        /// Gauge: Apple requests in flight in this process.
        package static let jobsInFlight = "receiptd_jobs_in_flight"
        /// Gauge (sampled): pending jobs whose `run_at` has passed.
        package static let queueDue = "receiptd_queue_due_jobs"
        /// Gauge (sampled): seconds since the oldest due job became due; 0 when none is due.
        package static let queueOldestDueAge = "receiptd_queue_oldest_due_age_seconds"
        /// Counter: database connections re-established after a loss.
        package static let databaseReconnects = "receiptd_database_reconnects_total"
        /// Gauge: delivered Google purchases whose acknowledgement is still owed past `GOOGLE_PLAY_FINALIZE_OVERDUE`.
        package static let googleFinalizationsOverdue = "receiptd_google_finalizations_overdue"
        /// Counter by `action` and `result` (`ok`, `failed`): acknowledge and consume calls to Google.
        package static let googleFinalizations = "receiptd_google_finalizations_total"
        /// Gauge by `api` and `store`: 1 while claims skip the jobs that need that store API (its breaker is open).
        package static let storeAPIPaused = "receiptd_store_api_paused"
        /// Counter by `store` and `reason` (`body`, `too_large`, `malformed`, `chain`, `signature`, `bundle`,
        /// `environment`, `app_apple_id`, `database`): notification requests the intake refused.
        package static let notificationsRefused = "receiptd_notifications_refused_total"
        package static let notificationConnectionsRefused = "receiptd_notification_connections_refused_total"
        /// Counter by `store`, `type` and `result`: store notifications processed.
        package static let storeNotifications = "receiptd_store_notifications_total"
    }

    /// Histogram buckets for Apple calls: from a fast answer (50 ms) to the default timeout (30 s).
    package static let appleRequestBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10), .seconds(20), .seconds(30),
    ]

    let factory: any MetricsFactory
    private let claimed: Counter
    private let inFlight: Meter
    private let due: Meter
    private let oldestDueAge: Meter
    private let reconnects: Counter

    /// Creates the metrics on `factory`; by default the one `MetricsSystem` was bootstrapped with.
    package init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        claimed = Counter(label: Name.jobsClaimed, factory: factory)
        inFlight = Meter(label: Name.jobsInFlight, factory: factory)
        due = Meter(label: Name.queueDue, factory: factory)
        oldestDueAge = Meter(label: Name.queueOldestDueAge, factory: factory)
        reconnects = Counter(label: Name.databaseReconnects, factory: factory)
    }

    /// A claim statement took `count` jobs.
    package func jobsClaimed(_ count: Int) {
        guard count > 0 else { return }
        claimed.increment(by: count)
    }

    /// A job left `running` for good: its final `state`, and the order's outcome if one was recorded.
    package func jobFinished(state: JobState, outcome: OrderOutcome? = nil) {
        Counter(
            label: Name.jobsFinished,
            dimensions: [("state", state.rawValue), ("outcome", outcome?.rawValue ?? "none")],
            factory: factory
        ).increment()
    }

    /// One call to `api` took `seconds` and ended well (`failure` nil, labelled `ok`) or with `failure`.
    package func appleRequest(environment: StoreEnvironment, api: StoreAPI, failure: ErrorClass?, seconds: Double) {
        Timer(
            label: Name.appleRequestDuration,
            dimensions: [
                ("environment", environment.rawValue.lowercased()), ("api", api.rawValue),
                ("store", api.store.rawValue),
                ("result", failure?.rawValue ?? "ok"),
            ],
            factory: factory
        ).recordSeconds(seconds)
    }

    /// Whether claims skip the jobs that need `api` (its circuit breaker is open).
    package func storeAPIPaused(_ api: StoreAPI, _ paused: Bool) {
        Meter(
            label: Name.storeAPIPaused,
            dimensions: [("api", api.rawValue), ("store", api.store.rawValue)],
            factory: factory
        )
        .set(paused ? 1 : 0)
    }

    /// An attempt failed transiently with `errorClass` and the job will be retried.
    package func retry(errorClass: ErrorClass) {
        Counter(label: Name.retries, dimensions: [("error_class", errorClass.rawValue)], factory: factory).increment()
    }

    /// Sets the number of Apple requests in flight.
    package func setInFlight(_ count: Int) { inFlight.set(count) }

    /// A sample of the queue: jobs due now, and how long the oldest of them has waited.
    package func queueDepth(due count: Int, oldestDueAgeSeconds: Double) {
        due.set(count)
        oldestDueAge.set(max(0, oldestDueAgeSeconds))
    }

    /// One store notification was processed with `result`.
    package func storeNotification(store: String, type: String, result: NotificationResult) {
        Counter(
            label: Name.storeNotifications,
            dimensions: [("store", store), ("type", type), ("result", result.rawValue)],
            factory: factory
        ).increment()
    }

    /// A lost database connection was re-established.
    package func databaseReconnect() { reconnects.increment() }

    /// Sets how many Google acknowledgements are overdue.
    package func googleFinalizationsOverdue(_ count: Int) {
        Meter(label: Name.googleFinalizationsOverdue, factory: factory).set(count)
    }

    /// Counts one acknowledge or consume call.
    package func googleFinalization(action: GoogleFinalizeAction, succeeded: Bool) {
        Counter(
            label: Name.googleFinalizations,
            dimensions: [("action", action.rawValue), ("result", succeeded ? "ok" : "failed")],
            factory: factory
        ).increment()
    }

    /// The notification intake turned a connection or a forwarded request away at its limits, for `reason`
    /// (`connections`, `peer` or `client`).
    package func notificationConnectionRefused(reason: String) {
        Counter(label: Name.notificationConnectionsRefused, dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// The notification intake refused a request from `store` for `reason`.
    package func notificationRefused(store: Store, reason: String) {
        Counter(
            label: Name.notificationsRefused,
            dimensions: [("store", store.rawValue), ("reason", reason)],
            factory: factory
        ).increment()
    }
}
