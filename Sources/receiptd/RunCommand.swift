import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import Prometheus
import ReceiptdCore
import ServiceLifecycle

/// `receiptd run`: the daemon, until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the verification daemon.")

    @OptionGroup var options: SettingsOptions

    func run() async throws {
        let settings = try options.settings()
        LogSetup.bootstrap(format: settings.logFormat, level: settings.logLevel)
        let logger = Logger(label: "receiptd")
        // Before anything creates a metric, so every metric lands in the exported registry.
        let registry = settings.metrics.map { _ in ReceiptdMetrics.bootstrapPrometheus() }
        let client = HTTPClient.makeForStores(concurrency: settings.daemon.concurrency)
        let daemon = ReceiptDaemon(
            configuration: settings.daemon,
            connectionString: settings.databaseURL,
            verifier: AppleVerifier(configuration: settings.apple, client: client),
            storeKit: settings.storeKit,
            googlePlay: settings.googlePlay,
            trust: settings.trust,
            webhooks: settings.webhooks,
            logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(
                services: services(
                    daemon: daemon,
                    settings: settings,
                    registry: registry,
                    client: client,
                    logger: logger
                ),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// The daemon and its companions. Graceful shutdown walks this list backwards: systemd hears
    /// `STOPPING=1` first, the notification endpoint stops taking requests (while the database pool it records
    /// on is still open), the daemon drains next, and metrics and the watchdog stay up until it is done.
    private func services(
        daemon: ReceiptDaemon,
        settings: ReceiptdSettings,
        registry: PrometheusCollectorRegistry?,
        client: HTTPClient,
        logger: Logger
    ) -> [any Service] {
        let environment = ProcessInfo.processInfo.environment
        let notifier = SystemdNotifier(environment: environment)
        var services: [any Service] = []
        if let watchdog = SystemdWatchdogService(environment: environment, notifier: notifier, logger: logger) {
            services.append(watchdog)
        }
        if let address = settings.metrics, let registry {
            let probe = daemon.makeDatabaseProbe()
            services.append(
                MetricsServer(
                    configuration: address,
                    registry: registry,
                    logger: logger,
                    readiness: { await probe.check() }
                )
            )
        }
        services.append(daemon)
        services += daemon.companions
        if let address = settings.notifications {
            let route = AppleNotificationRoute(
                verifier: AppleNotificationVerifier(settings: settings),
                intake: daemon.makeNotificationIntake(),
                logger: logger
            )
            // Served even before Google's push settings are there: it refuses with 401 until they are.
            let google = GoogleNotificationRoute(
                configuration: settings.googlePlay,
                client: client,
                intake: daemon.makeNotificationIntake(),
                logger: logger
            )
            services.append(
                NotificationServer(
                    configuration: address,
                    routes: [route, google],
                    trustedProxies: settings.trustedProxies,
                    logger: logger
                )
            )
        }
        services.append(SystemdNotifyService(notifier: notifier, logger: logger) { await daemon.waitUntilReady() })
        return services
    }
}
