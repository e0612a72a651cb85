import Foundation
import Prometheus
import ReceiptdCore
import ServiceLifecycle
import Testing

/// The endpoint's connection limit and request timeout, over raw TCP: a client that connects and says
/// nothing, or drips its request, must not keep a file descriptor the database pool needs.
extension MetricsServerTests {
    static let healthRequest = "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"

    /// A loopback server on a free port with `adjust` applied.
    static func configuration(_ adjust: (inout MetricsServer.Configuration) -> Void) -> MetricsServer.Configuration {
        var configuration = MetricsServer.Configuration(host: "127.0.0.1", port: 0)
        adjust(&configuration)
        return configuration
    }

    /// A new connection that asks for `/healthz` and reads the answer, or nil if the server closed it instead.
    static func answeredClient(port: Int, from source: String? = nil) async throws -> RawTCPClient? {
        let client = try RawTCPClient(port: port, from: source)
        client.send(healthRequest)
        return try await client.read(until: "\r\n\r\nok\n", within: .seconds(5)) ? client : nil
    }

    @Test func connectionsOverTheLimitAreClosedAtOnce() async throws {
        let configuration = Self.configuration {
            $0.maxConnections = 4
            $0.requestTimeout = .seconds(60)
        }
        try await withServer(configuration: configuration) { base in
            let port = try #require(URL(string: base)?.port)
            // Keep-alive connections that got an answer, each from a peer of its own (one peer may hold a
            // quarter): the server holds all four open.
            var held: [RawTCPClient] = []
            for peer in 1...4 {
                held.append(
                    try #require(try await Self.answeredClient(port: port, from: "127.0.0.\(peer)"), "within the limit")
                )
            }

            for peer in 5..<13 {
                let extra = try RawTCPClient(port: port, from: "127.0.0.\(peer)")
                extra.send(Self.healthRequest)
                let started = ContinuousClock.now
                #expect(try await extra.waitForClose(within: .seconds(3)), "a connection over the limit must be closed")
                #expect(ContinuousClock.now - started < .seconds(3))
                #expect(!extra.received.contains("200"), "and not served")
            }
            for client in held {
                client.send(Self.healthRequest)
                #expect(
                    try await client.read(until: "HTTP/1.1 200", within: .seconds(5)),
                    "the held connections are still served"
                )
            }

            // Two close: exactly two new connections fit again, and a third is turned away.
            held[0].close()
            held[1].close()
            var fresh: [RawTCPClient] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while fresh.count < 2 && ContinuousClock.now < deadline {
                // Retried until the server saw the closes.
                let peer = "127.0.0.\(20 + fresh.count)"
                if let client = try await Self.answeredClient(port: port, from: peer) { fresh.append(client) }
            }
            #expect(fresh.count == 2, "/healthz answers on a fresh connection once others closed")
            #expect(try await Self.answeredClient(port: port, from: "127.0.0.30") == nil, "never more than the limit")
        }
    }

    @Test func onePeerHoldsAtMostAQuarterOfTheConnections() async throws {
        let configuration = Self.configuration {
            $0.maxConnections = 8
            $0.requestTimeout = .seconds(60)
        }
        try await withServer(configuration: configuration) { base in
            let port = try #require(URL(string: base)?.port)
            // One peer opens every connection there is and drips a request into each.
            var attacker: [RawTCPClient] = []
            for _ in 0..<configuration.maxConnections {
                let client = try RawTCPClient(port: port, from: "127.0.0.2")
                client.send("GET /healthz HTTP/1.1\r\nHost: test\r\nX-Drip: a")
                attacker.append(client)
            }
            var closed = 0
            for client in attacker where try await client.waitForClose(within: .milliseconds(500)) { closed += 1 }
            #expect(closed == configuration.maxConnections - 2, "all but its quarter are closed at once")
            // Everyone else still gets the other three quarters.
            for source in ["127.0.0.1", "127.0.0.3"] {
                let client = try RawTCPClient(port: port, from: source)
                client.send(Self.healthRequest)
                #expect(try await client.read(until: "\r\n\r\nok\n", within: .seconds(5)), "\(source) is served")
            }
        }
    }

    @Test func anAddressInUseIsLoggedAndTheDaemonGoesOnWithoutTheEndpoint() async throws {
        try await withServer { base in
            let port = try #require(URL(string: base)?.port)
            let lines = CapturingLogHandler.Lines()
            let second = MetricsServer(
                configuration: .init(host: "127.0.0.1", port: port),
                registry: PrometheusCollectorRegistry(),
                logger: CapturingLogHandler.logger(into: lines),
                readiness: { true }
            )
            let group = ServiceGroup(configuration: .init(services: [second], logger: Self.logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(await second.port() == nil)
                let logged = lines.all.joined(separator: "\n")
                #expect(logged.contains("RECEIPTD_METRICS_ADDR") && logged.contains("127.0.0.1:\(port)"), "\(logged)")
                // The service waits for the daemon to stop instead of ending (which would stop the daemon).
                try await Task.sleep(for: .milliseconds(300))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await get(base + "/healthz").0 == 200, "the first server is untouched")
        }
    }

    @Test func aRequestDrippedByteByByteIsClosedWithinTheTimeout() async throws {
        try await withServer(configuration: Self.configuration { $0.requestTimeout = .seconds(1) }) { base in
            let port = try #require(URL(string: base)?.port)
            let client = try RawTCPClient(port: port)
            let started = ContinuousClock.now
            #expect(client.send("GET /healthz HTTP/1.1\r\nHost: test\r\nX-Drip: "))
            var closed = false
            // One byte every 200 ms would keep the request head coming for a minute.
            for _ in 0..<300 where !closed {
                client.send("a")
                closed = try await client.waitForClose(within: .milliseconds(200))
                if ContinuousClock.now - started > .seconds(10) { break }
            }
            let elapsed = ContinuousClock.now - started
            #expect(closed, "a dripped request must not hold the connection")
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(4), "closed after \(elapsed)")
            #expect(client.received.isEmpty, "no answer to a request that never arrived")
        }
    }

    @Test func idleConnectionsAreClosedAfterTheTimeout() async throws {
        try await withServer(configuration: Self.configuration { $0.requestTimeout = .seconds(1) }) { base in
            let port = try #require(URL(string: base)?.port)
            let started = ContinuousClock.now
            let silent = try RawTCPClient(port: port)
            let keptAlive = try #require(try await Self.answeredClient(port: port))
            let answered = ContinuousClock.now

            #expect(try await silent.waitForClose(within: .seconds(4)), "a connection that never sends a request")
            #expect(ContinuousClock.now - started >= .milliseconds(900), "but not before the timeout")
            #expect(
                try await keptAlive.waitForClose(within: .seconds(4)),
                "an idle keep-alive connection after its answer"
            )
            #expect(ContinuousClock.now - answered >= .milliseconds(900))

            // The server itself is fine: a new connection is served.
            #expect(try await Self.answeredClient(port: port) != nil)
        }
    }
}
