import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import Testing

@Suite struct ResilienceTests {
    @Test func anAnswerOverTheBodyCapIsTransient() async throws {
        try await Fixture.with { f in
            let many = (0..<20).map { Receipts.purchase("50\($0)") }
            try await f.enqueue("o1", receipt: SyntheticReceipt(inApp: many).encoded())
            let settings = f.settings {
                $0.apple.maximumBodyBytes = 512
                $0.daemon.maxAttempts = 2
            }
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "failed")
            #expect(row["last_error"]?.contains("larger than 512 bytes") == true)
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func aSlowDripBodyIsCutOffByTheTimeout() async throws {
        // 36 bytes a second apart: uncut, the answer would take 36 s and arrive whole.
        let drip = try DripServer(byteInterval: 1_000_000)
        defer { drip.stop() }
        try await Fixture.with { f in
            try await f.enqueue("o1", receipt: Receipts.paying("5101"))
            let settings = f.settings {
                $0.apple.productionURL = drip.url
                $0.apple.requestTimeout = .seconds(1)
                $0.daemon.maxAttempts = 1
            }
            let started = ContinuousClock.now
            try await f.withDaemons(settings: settings) { _ in try await f.waitUntilSettled() }
            // Far below the drip's 36 s even on a loaded machine; the timeout is 1 s.
            #expect(ContinuousClock.now - started < .seconds(20))
            let row = try await f.order("o1")
            #expect(row["outcome"] == "failed")
            #expect(row["last_error"]?.contains("no complete answer") == true)
        }
    }

    @Test func theCircuitBreakerHoldsBackARetryStorm() async throws {
        let standIn = AppStoreStandIn(
            configuration: .init(unavailableRate: 1),
            logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await standIn.start()
        do {
            try await stormAgainst(standIn)
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    private func stormAgainst(_ standIn: AppStoreStandIn) async throws {
        try await Fixture.with { f in
            for index in 0..<40 {
                try await f.enqueue("o\(index)", user: "u\(index)", receipt: Receipts.paying("52\(index)"))
            }
            let settings = f.settings {
                $0.apple.productionURL = standIn.productionURL
                $0.daemon.maxAttempts = 1_000
                $0.daemon.circuitBreaker.baseCooldown = .seconds(2)
            }
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await Task.sleep(for: .seconds(3))
            }
            // Without the breaker, 40 jobs retrying every 0.05–0.2 s make several hundred calls in 3 s.
            let calls = standIn.recordedRequests().count
            #expect(calls >= 10 && calls < 60, "\(calls) calls")
            #expect(lines.all.contains { $0.contains("pausing claims") })
        }
    }

    @Test func theCircuitBreakerResumesOnItsOwnAfterAnOutage() async throws {
        try await Fixture.with { f in
            for index in 0..<30 {
                try await f.enqueue("o\(index)", user: "u\(index)", receipt: Receipts.paying("53\(index)"))
            }
            f.standIn.setOutage(true)
            let settings = f.settings {
                $0.daemon.maxAttempts = 1_000
                $0.daemon.circuitBreaker.baseCooldown = .milliseconds(400)
                $0.daemon.circuitBreaker.maximumCooldown = .seconds(1)
            }
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { lines.all.contains { $0.contains("pausing claims") } }
                try await Task.sleep(for: .seconds(1))
                f.standIn.setOutage(false)
                try await f.waitUntilSettled(timeout: .seconds(30))
            }
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "30")
            #expect(lines.all.contains { $0.contains("claiming resumes") })
        }
    }
}
