import Logging
import ServiceLifecycle

/// Tells systemd `READY=1` once the daemon is ready, and `STOPPING=1` as soon as graceful shutdown begins.
///
/// Put it last in the `ServiceGroup`: graceful shutdown walks the group backwards, so this service
/// hears of it first and systemd learns of the stop before the daemon starts draining.
package struct SystemdNotifyService: Service, CustomStringConvertible {
    private let notifier: SystemdNotifier
    private let readiness: @Sendable () async -> Void
    private let logger: Logger

    /// Creates the service; `readiness` returns once the process is ready (for example `daemon.waitUntilReady()`).
    package init(notifier: SystemdNotifier, logger: Logger, readiness: @escaping @Sendable () async -> Void) {
        self.notifier = notifier
        self.readiness = readiness
        self.logger = logger
    }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "SystemdNotifyService" }

    /// Waits for readiness and sends `READY=1`; then waits for graceful shutdown and sends `STOPPING=1`.
    package func run() async throws {
        let readiness = self.readiness
        // A shutdown while the database is still out of reach must not wait for it.
        await cancelWhenGracefulShutdown { await readiness() }
        if !Task.isShuttingDownGracefully && !Task.isCancelled {
            notify("ready") { try notifier.ready(status: "verifying receipts") }
        }
        do {
            try await gracefulShutdown()
        } catch {
            return  // Cancelled: the group is going away without a graceful shutdown.
        }
        notify("stopping") { try notifier.stopping(status: "finishing requests in flight") }
    }

    private func notify(_ what: String, _ send: () throws -> Void) {
        do {
            try send()
            if notifier.isEnabled { logger.debug("notified systemd", metadata: [LogKey.systemdState: "\(what)"]) }
        } catch {
            logger.warning(
                "could not notify systemd",
                metadata: [LogKey.systemdState: "\(what)", LogKey.error: "\(error)"]
            )
        }
    }
}
