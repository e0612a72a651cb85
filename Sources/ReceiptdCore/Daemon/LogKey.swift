/// Log metadata keys, in one place so every line names things the same way.
enum LogKey {
    /// `iap.jobs.id`.
    static let jobID = "job_id"
    /// `iap.orders.order_id`.
    static let orderID = "order_id"
    /// The attempt number of the job.
    static let attempt = "attempt"
    /// This daemon's `locked_by` identity.
    static let daemon = "daemon"
    /// A short error class (`transport`, `http`, `garbled`, …).
    static let errorClass = "error_class"
    /// The store environment that answered (`production` or `sandbox`).
    static let environment = "environment"
    /// An error description.
    static let error = "error"
    /// What systemd was told (`ready`, `stopping`).
    static let systemdState = "systemd_state"
    /// How often the systemd watchdog is fed.
    static let watchdogPeriod = "watchdog_period"
    /// The `host:port` an HTTP endpoint listens on.
    static let listenAddress = "listen_address"
}
