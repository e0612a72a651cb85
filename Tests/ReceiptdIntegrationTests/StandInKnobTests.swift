import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import Testing

@testable import FakeAppStore

/// The stand-in's load-test knobs: log-normal latency, calls that never end, sandbox receipts.
@Suite struct StandInKnobTests {
    @Test func logNormalLatencyHasTheAskedMedianAndP99() {
        let latency = AppStoreStandIn.Latency.logNormal(medianMilliseconds: 40, p99Milliseconds: 200)
        var generator = SplitMix64(seed: 7)
        let draws = (0..<20_000).map { _ in latency.draw(using: &generator) }.sorted()
        #expect(abs(draws[draws.count / 2] - 40) <= 2, "median \(draws[draws.count / 2])")
        let p99 = draws[draws.count * 99 / 100]
        #expect(abs(p99 - 200) <= 20, "p99 \(p99)")
        #expect(draws.first! >= 0)
        var first = SplitMix64(seed: 7)
        var second = SplitMix64(seed: 7)
        #expect((0..<5).map { _ in latency.draw(using: &first) } == (0..<5).map { _ in latency.draw(using: &second) })
    }

    @Test func latencySpecificationsParse() {
        #expect(AppStoreStandIn.Latency(specification: "fixed:250") == .fixed(milliseconds: 250))
        #expect(
            AppStoreStandIn.Latency(specification: "uniform:5-30") == .uniform(minMilliseconds: 5, maxMilliseconds: 30)
        )
        #expect(
            AppStoreStandIn.Latency(specification: "lognormal:40,200")
                == .logNormal(medianMilliseconds: 40, p99Milliseconds: 200)
        )
        for bad in ["250", "fixed:-1", "uniform:30-5", "uniform:5", "lognormal:40", "lognormal:200,40", "gauss:1,2"] {
            #expect(AppStoreStandIn.Latency(specification: bad) == nil, "\(bad)")
        }
    }

    @Test func aTimedOutCallIsNeverAnsweredAndItsHangUpIsRecorded() async throws {
        try await withStandIn(.init(timeoutRate: 1)) { standIn, client in
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) {
                _ = try await post(
                    Receipts.paying("1"),
                    to: standIn.productionURL,
                    client: client,
                    timeout: .milliseconds(400)
                )
            }
            #expect(ContinuousClock.now - started >= .milliseconds(350))
            try await eventually { standIn.recordedRequests().first?.abortedByClient == true }
            let record = try #require(standIn.recordedRequests().first)
            #expect(record.answeredStatus == nil && record.httpStatus == nil)
        }
    }

    @Test func aSandboxReceiptIsRedirectedThenVerified() async throws {
        try await withStandIn(.init(sandboxRate: 1)) { standIn, client in
            let receipt = Receipts.paying("1")
            #expect(try await post(receipt, to: standIn.productionURL, client: client).contains("\"status\":21007"))
            let sandbox = try await post(receipt, to: standIn.sandboxURL, client: client)
            #expect(sandbox.contains("\"status\":0") && sandbox.contains("Sandbox"), "\(sandbox)")
        }
    }

    @Test func theSandboxRateIsAShareOfReceipts() async throws {
        try await withStandIn(.init(sandboxRate: 0.3)) { standIn, client in
            var redirected = 0
            for index in 0..<100 {
                let answer = try await post(Receipts.paying("\(index)"), to: standIn.productionURL, client: client)
                if answer.contains("21007") { redirected += 1 }
            }
            #expect((15...45).contains(redirected), "\(redirected) of 100")
        }
    }

    @Test func theDaemonVerifiesSandboxReceiptsThroughTheRedirect() async throws {
        try await Fixture.with(standIn: { $0.sandboxRate = 1 }) { f in
            try await f.enqueue("o1", receipt: Receipts.paying("61"))
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let row = try await f.order("o1")
            #expect(row["outcome"] == "full" && row["environment"] == "Sandbox")
            #expect(f.standIn.recordedRequests().map(\.answeredStatus) == [21007, 0])
        }
    }

    @Test func theCommandRejectsABadLatency() throws {
        let run = try ReceiptdBinary.run(["fake-appstore", "--latency", "lognormal:9"])
        #expect(run.status == 2 && run.stderr.contains("--latency must be"), "\(run.stderr)")
    }
}
