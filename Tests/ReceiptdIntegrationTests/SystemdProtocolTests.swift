import Logging
import ServiceLifecycle
import Testing

@testable import ReceiptdCore

/// sd_notify over a real datagram socket, as systemd would receive it.
@Suite struct SystemdProtocolTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(arguments: [false, true])
    func notificationsArriveAsDatagrams(abstract: Bool) async throws {
        let receiver = try DatagramReceiver(abstract: abstract)
        let notifier = SystemdNotifier(environment: receiver.environment)
        try notifier.ready(status: "verifying receipts")
        try notifier.watchdog()
        try notifier.status("draining")
        try notifier.stopping(status: "bye")
        #expect(await receiver.receive() == "READY=1\nSTATUS=verifying receipts")
        #expect(await receiver.receive() == "WATCHDOG=1")
        #expect(await receiver.receive() == "STATUS=draining")
        #expect(await receiver.receive() == "STOPPING=1\nSTATUS=bye")
    }

    @Test func aMissingSocketIsAnErrorNotACrash() throws {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/receiptd/notify"])
        #expect(throws: SystemdNotifyError.self) { try notifier.ready(status: "x") }
    }

    @Test func theWatchdogPingsUntilGracefulShutdown() async throws {
        let receiver = try DatagramReceiver(abstract: false)
        let watchdog = SystemdWatchdogService(
            notifier: SystemdNotifier(environment: receiver.environment),
            period: .milliseconds(20),
            logger: Self.logger
        )
        let group = ServiceGroup(configuration: .init(services: [watchdog], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<3 { #expect(await receiver.receive(timeout: .seconds(30)) == "WATCHDOG=1") }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        while await receiver.receive(timeout: .milliseconds(50)) != nil {}  // Drain pings sent before the stop.
        #expect(await receiver.receive(timeout: .milliseconds(100)) == nil, "no pings after shutdown")
    }

    @Test func readyOnceReadyThenStoppingOnGracefulShutdown() async throws {
        let receiver = try DatagramReceiver(abstract: true)
        let ready = ReadinessSignal()
        let service = SystemdNotifyService(
            notifier: SystemdNotifier(environment: receiver.environment),
            logger: Self.logger
        ) { await ready.wait() }
        let group = ServiceGroup(configuration: .init(services: [service], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await receiver.receive(timeout: .milliseconds(100)) == nil, "not ready yet")
            ready.fire()
            #expect(await receiver.receive() == "READY=1\nSTATUS=verifying receipts")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(await receiver.receive() == "STOPPING=1\nSTATUS=finishing requests in flight")
    }

    @Test func shutdownBeforeReadinessSendsOnlyStopping() async throws {
        let receiver = try DatagramReceiver(abstract: false)
        let service = SystemdNotifyService(
            notifier: SystemdNotifier(environment: receiver.environment),
            logger: Self.logger
        ) { await ReadinessSignal().wait() }
        let group = ServiceGroup(configuration: .init(services: [service], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(await receiver.receive()?.hasPrefix("STOPPING=1") == true)
    }

    @Test func theDaemonBecomesReadyOnceListening() async throws {
        try await Fixture.with { f in
            try await f.withDaemons { daemons in
                let daemon = try #require(daemons.first)
                try await withThrowingTaskGroup(of: Bool.self) { race in
                    race.addTask {
                        await daemon.waitUntilReady()
                        return true
                    }
                    race.addTask {
                        try await Task.sleep(for: .seconds(20))
                        return false
                    }
                    let first = try await race.next()
                    #expect(first == true, "waitUntilReady returned")
                    race.cancelAll()
                }
            }
        }
    }
}
