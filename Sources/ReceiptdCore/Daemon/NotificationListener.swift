import Logging

/// Holds a `LISTEN` connection and turns notifications into daemon events; reconnects with backoff when it is lost.
struct NotificationListener: Sendable {
    /// Channel on which `enqueue_receipt` announces a new job.
    static let jobsChannel = "iap_jobs"
    /// Channel on which a running job's replacement is announced (payload: the superseded job's id).
    static let cancelChannel = "iap_job_cancel"
    /// Channel on which a newly recorded store notification is announced.
    static let storeNotificationChannel = PostgresJobQueue.notificationsChannel
    /// Channel on which new webhook events are announced (sql/routines/09_webhooks.sql).
    static let webhookChannel = "iap_webhooks"

    /// For the `LISTEN` connection, the one connection of the daemon outside its queue's pool.
    let connectionString: String
    /// Checks a cancel notification against the database before a request is aborted.
    let queue: any JobQueue
    let logger: Logger
    /// Fired once `LISTEN` is up: the database has answered and no notification can be missed from now on.
    let readiness: ReadinessSignal
    let metrics: ReceiptdMetrics
    /// Rung for each new store notification: the processor looks at once instead of at its next poll.
    let storeNotifications: Doorbell
    /// Rung with it: Google's lookups look at once too.
    var googleLookups: Doorbell? = nil
    /// Rung for new webhook events: the senders look at once.
    var webhookEvents: Doorbell? = nil

    /// Listens until the task is cancelled: new jobs wake the dispatcher; a job announced as cancelled is aborted
    /// directly, once the database confirms it is no longer running under this daemon.
    func run(wake: WakeSignal, inFlight: InFlightJobs) async {
        var backoff = ReconnectBackoff()
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(connectionString)
                do {
                    try await connection.execute("LISTEN \(Self.jobsChannel)")
                    try await connection.execute("LISTEN \(Self.cancelChannel)")
                    try await connection.execute("LISTEN \(Self.storeNotificationChannel)")
                    try await connection.execute("LISTEN \(Self.webhookChannel)")
                    readiness.fire()
                    if backoff.succeeded() {
                        logger.notice("database reachable again; listening for notifications")
                        metrics.databaseReconnect()
                    }
                    // Anything enqueued while we were not listening is found by polling at once.
                    wake.wake()
                    try await forward(from: connection, wake: wake, inFlight: inFlight)
                } catch {
                    await connection.close()
                    throw error
                }
                await connection.close()
            } catch {
                if backoff.failed() {
                    logger.error(
                        "database unreachable for notifications; retrying with backoff",
                        metadata: [LogKey.error: "\(error)"]
                    )
                }
                await backoff.wait()
            }
        }
    }

    private func forward(from connection: PostgresConnection, wake: WakeSignal, inFlight: InFlightJobs) async throws {
        while !Task.isCancelled {
            let notifications = try await connection.withSession {
                try $0.waitForNotifications(timeoutMilliseconds: 200)
            }
            var newJobs = false
            for notification in notifications {
                if notification.channel == Self.cancelChannel, let id = Int64(notification.payload) {
                    await abortIfReplaced(id, inFlight: inFlight)
                } else if notification.channel == Self.storeNotificationChannel {
                    storeNotifications.ring()
                    googleLookups?.ring()
                } else if notification.channel == Self.webhookChannel {
                    webhookEvents?.ring()
                } else {
                    newJobs = true
                }
            }
            if newJobs { wake.wake() }
        }
    }

    /// Any role may send `NOTIFY iap_job_cancel`, so the notification is only a hint: the request is aborted only
    /// when the job really was superseded or cancelled. A forged one is logged and changes nothing. The check runs
    /// on the queue's pool: when it fails, the request goes on, and its answer is dropped if the job is not ours.
    private func abortIfReplaced(_ jobID: Int64, inFlight: InFlightJobs) async {
        guard inFlight.contains(jobID) else { return }
        let running: Bool
        do {
            running = try await queue.isRunningHere(jobID)
        } catch {
            logger.warning(
                "could not check a cancel notification; the request goes on",
                metadata: [LogKey.jobID: "\(jobID)", LogKey.error: "\(error)"]
            )
            return
        }
        if running {
            logger.warning(
                "ignored a cancel notification for a job that is still running here",
                metadata: [LogKey.jobID: "\(jobID)"]
            )
        } else {
            inFlight.abort(jobID)
        }
    }
}
