import Logging
import Testing

@testable import ReceiptdCore

/// What the systemd types read from the environment; the protocol itself is tested over a real socket
/// in the integration tests.
@Suite struct SystemdSettingsTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func withoutNotifySocketNothingIsSent() throws {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        try notifier.ready(status: "x")
        try notifier.watchdog()
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]).isEnabled)
    }

    @Test func pathAndAbstractAddressesGetTheirExactLength() throws {
        let path = try SystemdNotifier.address(for: "/run/systemd/notify")
        #expect(Int(path.length) == 2 + "/run/systemd/notify".utf8.count + 1)
        let abstract = try SystemdNotifier.address(for: "@receiptd/notify")
        #expect(Int(abstract.length) == 2 + "@receiptd/notify".utf8.count)
        #expect(abstract.storage.sun_path.0 == 0)
    }

    @Test(arguments: ["relative/socket", "@", "/" + String(repeating: "x", count: 200)])
    func unusableAddressesAreReported(socket: String) {
        #expect(throws: SystemdNotifyError.self) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket]).watchdog()
        }
    }

    @Test func theWatchdogPingsAtHalfTheInterval() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x"])
        let watchdog = try #require(
            SystemdWatchdogService(
                environment: ["WATCHDOG_USEC": "30000000"],
                notifier: notifier,
                logger: Self.logger,
                processID: 42
            )
        )
        #expect(watchdog.interval == .seconds(15))
        #expect(
            SystemdWatchdogService(
                environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"],
                notifier: notifier,
                logger: Self.logger,
                processID: 42
            ) != nil
        )
    }

    @Test(arguments: [
        ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], [:], ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "soon"],
    ])
    func noWatchdogWhenNotAskedForThisProcess(environment: [String: String]) {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/run/x"])
        #expect(
            SystemdWatchdogService(environment: environment, notifier: notifier, logger: Self.logger, processID: 42)
                == nil
        )
        #expect(
            SystemdWatchdogService(
                environment: ["WATCHDOG_USEC": "1000"],
                notifier: SystemdNotifier(environment: [:]),
                logger: Self.logger,
                processID: 42
            ) == nil
        )
    }
}
