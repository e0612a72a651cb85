import FakeAppStore
import Foundation
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// The intake's limits over raw TCP, and the database going away under it.
extension AppleNotificationIntakeTests {
    static func head(contentLength: Int? = nil, chunked: Bool = false) -> String {
        var text = "POST /notifications/apple HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        if let contentLength { text += "Content-Length: \(contentLength)\r\n" }
        if chunked { text += "Transfer-Encoding: chunked\r\n" }
        return text + "\r\n"
    }

    @Test func aBodyOf10MiBAnswers400WithoutBeingRead() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f) { intake in
                let size = 10 << 20
                let client = try RawTCPClient(port: intake.port)
                #expect(client.send(Self.head(contentLength: size)))
                #expect(try await client.read(until: "\r\n\r\n", within: .seconds(5)), "answered before the body")
                #expect(client.received.hasPrefix("HTTP/1.1 400"), "\(client.received)")
                #expect(client.received.contains("too_large"))
                // The server closed the connection: the body cannot all be sent.
                let chunk = String(repeating: "x", count: 64 << 10)
                var sent = 0
                while sent < size && client.send(chunk) { sent += chunk.utf8.count }
                #expect(sent < size, "the server stopped taking the body after \(sent) bytes")
                #expect(try await client.waitForClose(within: .seconds(5)))

                // Without a content-length the server reads at most the limit, then answers and closes.
                let chunked = try RawTCPClient(port: intake.port)
                #expect(chunked.send(Self.head(chunked: true)))
                var streamed = 0
                while streamed < size {
                    guard chunked.send(String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n") else { break }
                    streamed += chunk.utf8.count
                    if try await chunked.read(until: "\r\n\r\n", within: .milliseconds(1)) { break }
                }
                #expect(streamed < size, "the server stopped taking the body after \(streamed) bytes")
                #expect(try await chunked.waitForClose(within: .seconds(5)))
                #expect(!chunked.received.contains("200"))
                try await f.waitUntil(timeout: .seconds(5)) { intake.refused("too_large") == 2 }
                #expect(try await Self.count(f) == 0)

                // A body at the limit is read (and refused for what it says, not for its size).
                let padded = Data(#"{"signedPayload":"x","pad":"\#(String(repeating: "p", count: 200 << 10))"}"#.utf8)
                let (status, answer) = try await Self.post(intake.port, padded)
                #expect(status == 400 && answer == "malformed\n", "\(status) \(answer)")
            }
        }
    }

    @Test func aSlowClientIsCutOffByTheDeadline() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f, server: { $0.requestTimeout = .seconds(1) }) { intake in
                let body = f.standIn.testChain.notificationBody(Self.refund("8401", chain: f.standIn.testChain))
                let client = try RawTCPClient(port: intake.port)
                let started = ContinuousClock.now
                #expect(client.send(Self.head(contentLength: body.count)))
                var closed = false
                // One byte every 200 ms would take minutes for the whole body.
                for byte in body where !closed {
                    client.send(String(decoding: [byte], as: UTF8.self))
                    closed = try await client.waitForClose(within: .milliseconds(200))
                    if ContinuousClock.now - started > .seconds(10) { break }
                }
                let elapsed = ContinuousClock.now - started
                #expect(closed, "a dripped body must not hold the connection")
                #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(5), "closed after \(elapsed)")
                #expect(client.received.isEmpty)
                #expect(try await Self.count(f) == 0)
                // The server is fine: the whole body at once is taken.
                #expect(try await Self.post(intake.port, body).0 == 200)
            }
        }
    }

    @Test func connectionsOverTheLimitAreClosedAtOnce() async throws {
        try await Fixture.with { f in
            let limits: (inout MetricsServer.Configuration) -> Void = {
                $0.maxConnections = 2
                $0.requestTimeout = .seconds(60)
            }
            try await Self.withIntake(f, server: limits) { intake in
                // Two peers (one peer may hold a quarter of the limit, at least one connection).
                let held = try [
                    RawTCPClient(port: intake.port, from: "127.0.0.2"),
                    RawTCPClient(port: intake.port, from: "127.0.0.3"),
                ]
                #expect(try await !held[0].waitForClose(within: .milliseconds(300)), "within the limit")
                #expect(try await !held[1].waitForClose(within: .milliseconds(10)), "within the limit")
                let extra = try RawTCPClient(port: intake.port, from: "127.0.0.4")
                #expect(extra.send(Self.head(contentLength: 2) + "{}"))
                #expect(try await extra.waitForClose(within: .seconds(3)), "a connection over the limit is closed")
                #expect(extra.received.isEmpty, "and not served")
                held[0].close()
                let body = f.standIn.testChain.notificationBody(Self.refund("8701", chain: f.standIn.testChain))
                var status = 0
                try await f.waitUntil(timeout: .seconds(10)) {
                    status = (try? await Self.post(intake.port, body).0) ?? 0
                    return status == 200
                }
                #expect(status == 200, "served again once one closed")
                #expect(!held[1].received.contains("HTTP"))
            }
        }
    }

    @Test func slowConnectionsFromOnePeerDoNotShutTheStoresOut() async throws {
        try await Fixture.with { f in
            let limits: (inout MetricsServer.Configuration) -> Void = {
                $0.maxConnections = 8
                $0.requestTimeout = .seconds(2)
            }
            try await Self.withIntake(f, server: limits) { intake in
                let chain = f.standIn.testChain
                let port = intake.port
                // One peer keeps opening slow connections, each reopened as the deadline or the cap closes it.
                let flooding = Task {
                    var open: [RawTCPClient] = []
                    while !Task.isCancelled {
                        open.removeAll { !$0.send("a") }
                        while open.count < 8, let client = try? RawTCPClient(port: port, from: "127.0.0.2") {
                            client.send(Self.head(contentLength: 4096))
                            open.append(client)
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
                defer { flooding.cancel() }
                try await Task.sleep(for: .milliseconds(300))
                // The stores' pushes, from another address, are all answered promptly meanwhile.
                let started = ContinuousClock.now
                for index in 0..<10 {
                    let body = chain.notificationBody(Self.refund("88\(index)", chain: chain))
                    let status = try? await Self.post(intake.port, body).0
                    #expect(status == 200, "push \(index)")
                }
                #expect(ContinuousClock.now - started < .seconds(10))
                #expect(try await Self.count(f) == 10)
            }
        }
    }

    @Test func theDatabaseAwayAnswers503ThenTheRetryIsRecorded() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }
        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            try await Self.withIntake(f) { intake in
                let chain = f.standIn.testChain
                #expect(
                    try await Self.post(intake.port, chain.notificationBody(Self.refund("8501", chain: chain))).0 == 200
                )
                let missed = chain.notificationBody(Self.refund("8502", chain: chain))
                try cluster.stopServer(mode: .fast)
                let (status, answer) = try await Self.post(intake.port, missed)
                #expect(status == 503 && answer == "database\n", "\(status) \(answer)")
                #expect(intake.refused("database") == 1)
                try cluster.resume()
                // Apple retries until it hears 200.
                var retried = 0
                try await f.waitUntil(timeout: .seconds(20)) {
                    retried = try await Self.post(intake.port, missed).0
                    return retried == 200
                }
                #expect(retried == 200)
            }
            let fresh = try await f.database.connect()
            let ids = try await fresh.execute("SELECT transaction_id FROM iap.store_notifications ORDER BY 1")
            #expect(ids.rows.map { $0[0] } == ["8501", "8502"], "nothing lost")
            await fresh.close()
        }
    }
}
