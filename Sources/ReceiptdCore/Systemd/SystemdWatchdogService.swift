import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends `WATCHDOG=1` at half the interval systemd asked for (`WatchdogSec=` → `WATCHDOG_USEC`).
///
/// It runs until graceful shutdown reaches it. Put it first in the `ServiceGroup`: services shut down
/// in reverse order, so it keeps systemd's watchdog fed while the daemon drains.
package struct SystemdWatchdogService: Service, CustomStringConvertible {
    private let notifier: SystemdNotifier
    private let period: Duration
    private let logger: Logger

    /// Creates the service with an explicit ping period.
    package init(notifier: SystemdNotifier, period: Duration, logger: Logger) {
        self.notifier = notifier
        self.period = period
        self.logger = logger
    }

    /// The service systemd asked for, or nil: no `NOTIFY_SOCKET`, no valid `WATCHDOG_USEC`, or
    /// `WATCHDOG_PID` names another process (the watchdog is then a parent's or a child's business).
    package init?(
        environment: [String: String],
        notifier: SystemdNotifier,
        logger: Logger,
        processID: Int32 = getpid()
    ) {
        guard notifier.isEnabled, let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text),
            microseconds > 0
        else { return nil }
        if let pid = environment["WATCHDOG_PID"], !pid.isEmpty, Int32(pid) != processID { return nil }
        self.init(notifier: notifier, period: .microseconds(microseconds) / 2, logger: logger)
    }

    /// How often `WATCHDOG=1` is sent.
    package var interval: Duration { period }

    /// Short, for ServiceLifecycle's log lines.
    package var description: String { "SystemdWatchdogService(every \(period))" }

    /// Pings until graceful shutdown or cancellation.
    package func run() async throws {
        logger.debug("systemd watchdog enabled", metadata: [LogKey.watchdogPeriod: "\(period)"])
        var failing = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try notifier.watchdog()
                failing = false
            } catch {
                // Logged once per outage: systemd will restart us if this persists, which is the point.
                if !failing {
                    logger.warning("could not notify the systemd watchdog", metadata: [LogKey.error: "\(error)"])
                }
                failing = true
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: period) }
        }
    }
}
