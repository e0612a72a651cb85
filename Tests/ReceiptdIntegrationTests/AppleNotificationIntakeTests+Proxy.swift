import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 48, item 8: behind a proxy every push comes from the proxy's address. With the proxy trusted
/// (`RECEIPTD_TRUSTED_PROXIES`), the per-peer share counts the client it forwards for; from anyone else, the
/// forwarding headers change nothing.
extension AppleNotificationIntakeTests {
    /// One storm's pushes over 32 connections from the proxy at 127.0.0.2, held in flight together: every head
    /// and all but the last byte of every body are sent before any request is finished. `clients` names each
    /// connection's `X-Forwarded-For`. Returns each connection's status line, empty for one closed unanswered.
    static func stormThroughProxy(_ f: Fixture, port: Int, clients: [String]) async throws -> [String] {
        let chain = f.standIn.testChain
        var connections: [(RawTCPClient, String)] = []
        for (index, client) in clients.enumerated() {
            let body = String(decoding: chain.notificationBody(Self.refund("48\(index)", chain: chain)), as: UTF8.self)
            let connection = try RawTCPClient(port: port, from: "127.0.0.2")
            let head =
                "POST /notifications/apple HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nX-Forwarded-For: 198.51.100.1, \(client)\r\n\r\n"
            connection.send(head + body.dropLast())
            connections.append((connection, String(body.suffix(1))))
        }
        // Every request is in flight (or its connection refused) before any is finished.
        try await Task.sleep(for: .milliseconds(500))
        var statuses: [String] = []
        for (connection, last) in connections {
            connection.send(last)
            _ = try await connection.read(until: "\r\n\r\n", within: .seconds(10))
            statuses.append(connection.received.components(separatedBy: "\r\n")[0])
        }
        return statuses
    }

    @Test func aTrustedProxyCarriesAStormOver32Connections() async throws {
        try await Fixture.with { f in
            let proxy: (inout ReceiptdSettings) -> Void = {
                $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.2")
            }
            try await Self.withIntake(f, settings: proxy, server: { $0.requestTimeout = .seconds(30) }) { intake in
                // Apple pushes from many hosts: each connection forwards for another.
                let statuses = try await Self.stormThroughProxy(
                    f,
                    port: intake.port,
                    clients: (1...32).map { "17.0.0.\($0)" }
                )
                #expect(statuses == Array(repeating: "HTTP/1.1 200 OK", count: 32), "\(statuses)")
                #expect(try await Self.count(f) == 32)
            }
        }
    }

    @Test func oneClientBehindATrustedProxyKeepsItsShare() async throws {
        try await Fixture.with { f in
            let proxy: (inout ReceiptdSettings) -> Void = {
                $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.0/30")
            }
            try await Self.withIntake(f, settings: proxy, server: { $0.requestTimeout = .seconds(30) }) { intake in
                // 32 requests in flight for one client: a quarter of the limit is its share, the rest hear 429.
                let statuses = try await Self.stormThroughProxy(
                    f,
                    port: intake.port,
                    clients: Array(repeating: "17.0.0.1", count: 32)
                )
                #expect(statuses.filter { $0 == "HTTP/1.1 200 OK" }.count == 8, "\(statuses)")
                #expect(statuses.filter { $0 == "HTTP/1.1 429 Too Many Requests" }.count == 24, "\(statuses)")
                #expect(try await Self.count(f) == 8)
                // Its requests answered, the client is served again.
                let again = try await Self.stormThroughProxy(f, port: intake.port, clients: ["17.0.0.1"])
                #expect(again == ["HTTP/1.1 200 OK"])
            }
        }
    }

    @Test func anUntrustedProxysForwardingHeadersAreIgnored() async throws {
        try await Fixture.with { f in
            let elsewhere: (inout ReceiptdSettings) -> Void = {
                $0.trustedProxies = try! TrustedProxies(parsing: "10.0.0.0/8")
            }
            try await Self.withIntake(f, settings: elsewhere, server: { $0.requestTimeout = .seconds(30) }) { intake in
                // The same storm from an address not trusted is one peer: a quarter of the 32 connections, as before.
                let statuses = try await Self.stormThroughProxy(
                    f,
                    port: intake.port,
                    clients: (1...32).map { "17.0.0.\($0)" }
                )
                #expect(statuses.filter { $0 == "HTTP/1.1 200 OK" }.count == 8, "\(statuses)")
                #expect(statuses.filter(\.isEmpty).count == 24, "closed unanswered: \(statuses)")
                #expect(try await Self.count(f) == 8)
            }
        }
    }
}
