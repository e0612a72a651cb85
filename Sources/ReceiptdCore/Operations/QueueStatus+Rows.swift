extension QueueStatus.StateCount {
    /// Reads a row of `iap.queue_summary`.
    init(row: QueryResult.Row) throws {
        self.init(
            state: try row.jobState(),
            jobs: try row.int("jobs"),
            dueNow: try row.int("due_now"),
            oldestDueSeconds: row.optionalInt("oldest_due_seconds"),
            oldestHeartbeatSeconds: row.optionalInt("oldest_heartbeat_seconds")
        )
    }
}

extension QueueStatus.RetryCount {
    /// Reads a row of `iap.recent_retries` (with `last_seen` as UTC text).
    init(row: QueryResult.Row) throws {
        self.init(
            errorClass: try row.string("error_class"),
            retries: try row.int("retries"),
            jobs: try row.int("jobs"),
            lastSeen: try row.string("last_seen")
        )
    }
}

extension QueueStatus.StuckJob {
    /// Reads a row of `iap.stuck_jobs`.
    init(row: QueryResult.Row) throws {
        self.init(
            jobID: row.optionalInt64("job_id"),
            orderID: row["order_id"],
            state: try row["state"].map { _ in try row.jobState() },
            reason: try row.string("reason"),
            stuckSeconds: try row.int("stuck_seconds"),
            attempts: try row.int("attempts"),
            lockedBy: row["locked_by"],
            lastError: row["last_error"]
        )
    }
}

extension QueueStatus.OutcomeCount {
    /// Reads a row of the outcome count.
    init(row: QueryResult.Row) throws {
        self.init(outcome: try row.string("outcome"), orders: try row.int("orders"))
    }
}

extension QueueStatus.Daemon {
    /// Reads a row of `iap.daemons` with its heartbeat age.
    init(row: QueryResult.Row) throws {
        let age = try row.int("age")
        self.init(
            daemon: try row.string("daemon"),
            heartbeatAgeSeconds: age,
            inFlight: try row.int("in_flight"),
            alive: age < OperatorQueries.aliveWithinSeconds,
            pausedAPIs: (row["paused_apis"] ?? "").split(separator: ",").map(String.init)
        )
    }
}
