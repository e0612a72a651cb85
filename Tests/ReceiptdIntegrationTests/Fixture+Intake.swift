import AsyncHTTPClient
import CoreMetrics
import Foundation
import Logging
import ReceiptdCore
import ServiceLifecycle
import Testing

extension Fixture {
    /// Runs daemons with `settings` and the Google push intake the first one records into, on a free loopback
    /// port, while `body` runs with its URL.
    func withDaemonsAndGoogleIntake(
        settings: ReceiptdSettings,
        metrics: ReceiptdMetrics = ReceiptdMetrics(factory: NOOPMetricsHandler.instance),
        _ body: (String) async throws -> Void
    ) async throws {
        try await withDaemonsAndIntake(.google, settings: settings, metrics: metrics, body)
    }

    /// Runs daemons with `settings` and `store`'s push intake the first one records into, on a free loopback port,
    /// while `body` runs with its URL (`…/notifications/apple` or `…/notifications/google`).
    func withDaemonsAndIntake(
        _ store: Store,
        settings: ReceiptdSettings,
        metrics: ReceiptdMetrics = ReceiptdMetrics(factory: NOOPMetricsHandler.instance),
        _ body: (String) async throws -> Void
    ) async throws {
        let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        try await withDaemons(settings: settings, metrics: metrics) { daemons in
            let route: any NotificationRoute =
                switch store {
                case .google:
                    GoogleNotificationRoute(
                        configuration: settings.googlePlay,
                        client: HTTPClient.shared,
                        intake: daemons[0].makeNotificationIntake(),
                        logger: quiet
                    )
                case .apple:
                    AppleNotificationRoute(
                        verifier: AppleNotificationVerifier(settings: settings),
                        intake: daemons[0].makeNotificationIntake(),
                        logger: quiet
                    )
                }
            let intake = NotificationServer(
                configuration: MetricsServer.Configuration(host: "127.0.0.1", port: 0),
                routes: [route],
                logger: quiet
            )
            let group = ServiceGroup(configuration: .init(services: [intake], logger: quiet))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                do {
                    let port = try #require(await intake.port())
                    try await body("http://127.0.0.1:\(port)/notifications/\(store.rawValue)")
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }
}
