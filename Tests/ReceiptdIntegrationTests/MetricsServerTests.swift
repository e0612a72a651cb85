import AsyncHTTPClient
import Logging
import NIOCore
import Prometheus
import ReceiptdCore
import ServiceLifecycle
import Testing

/// `/metrics`, `/healthz` and `/readyz` over real HTTP.
@Suite struct MetricsServerTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs a server on a free loopback port while `body` runs; `body` gets the base URL.
    func withServer(
        configuration: MetricsServer.Configuration = .init(host: "127.0.0.1", port: 0),
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        readiness: @escaping @Sendable () async -> Bool = { true },
        _ body: (String) async throws -> Void
    ) async throws {
        let server = MetricsServer(
            configuration: configuration,
            registry: registry,
            logger: Self.logger,
            readiness: readiness
        )
        let group = ServiceGroup(configuration: .init(services: [server], logger: Self.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                let port = try #require(await server.port())
                #expect(port != 0)
                try await body("http://127.0.0.1:\(port)")
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// GETs `url`; returns the status code and body.
    func get(_ url: String) async throws -> (Int, String) {
        let request = HTTPClientRequest(url: url)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test func metricsExportsRegisteredCounters() async throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
        metrics.jobsClaimed(7)
        metrics.retry(errorClass: .transport)
        try await withServer(registry: registry) { base in
            let (status, body) = try await get(base + "/metrics")
            #expect(status == 200)
            let lines = body.split(separator: "\n").map(String.init)
            #expect(lines.contains("receiptd_jobs_claimed_total 7"))
            #expect(lines.contains(#"receiptd_retries_total{error_class="transport"} 1"#))
            metrics.jobsClaimed(1)
            let (_, later) = try await get(base + "/metrics")
            #expect(later.contains("receiptd_jobs_claimed_total 8"))
        }
    }

    @Test func healthAndUnknownPaths() async throws {
        try await withServer(readiness: { false }) { base in
            let (health, body) = try await get(base + "/healthz")
            #expect(health == 200 && body == "ok\n")
            let (missing, _) = try await get(base + "/nope")
            #expect(missing == 404)
        }
    }

    @Test func readyWhenTheDatabaseAnswers() async throws {
        let database = try await TestEnvironment.shared.database()
        let probe = DatabaseProbe(
            pool: DatabasePool(connectionString: database.connectionString, maximumConnections: 1)
        )
        try await withServer(readiness: { await probe.check() }) { base in
            let (ready, _) = try await get(base + "/readyz")
            #expect(ready == 200)
            let (withQuery, _) = try await get(base + "/readyz?verbose")
            #expect(withQuery == 200)
        }
    }

    @Test func notReadyWhenTheDatabaseIsUnreachable() async throws {
        let probe = DatabaseProbe(
            pool: DatabasePool(
                connectionString: "host=127.0.0.1 port=1 dbname=none user=u password=hunter2",
                maximumConnections: 1
            )
        )
        try await withServer(readiness: { await probe.check() }) { base in
            let started = ContinuousClock.now
            let (status, body) = try await get(base + "/readyz")
            #expect(status == 503)
            #expect(!body.contains("127.0.0.1") && !body.contains("hunter2"), "no connection details leak")
            #expect(ContinuousClock.now - started < .seconds(4))
            let (health, _) = try await get(base + "/healthz")
            #expect(health == 200, "alive even when not ready")
        }
    }

    @Test func aHungDatabaseIsNotReadyAfterTheTimeoutAndChecksDoNotPileUp() async throws {
        let silent = try SilentListener()
        let probe = DatabaseProbe(
            pool: DatabasePool(
                connectionString: "host=127.0.0.1 port=\(silent.port) dbname=none",
                maximumConnections: 1
            ),
            timeout: .seconds(2)
        )
        // Bounds are loose on purpose: the whole suite shares two cores. What matters is that the
        // check ends (at its own deadline, not libpq's) and that a second one does not wait behind the first.
        let started = ContinuousClock.now
        #expect(await probe.check() == false)
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(1900) && waited < .seconds(15), "answered after \(waited)")
        let again = ContinuousClock.now
        #expect(await probe.check() == false)
        #expect(ContinuousClock.now - again < waited, "the second check must not wait for a connection")
    }
}
