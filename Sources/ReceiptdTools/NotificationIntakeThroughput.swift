import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ServiceLifecycle

/// How many App Store notifications the intake accepts per second, each committed before its 200: the
/// `NotificationServer` of this build in this process on a pool of the daemon's default size, fed over HTTP by
/// concurrent keep-alive connections with notifications signed before the clock starts.
package struct NotificationIntakeThroughput: Sendable, Codable {
    /// Notifications posted (each a REFUND with its signed transaction), all distinct.
    package var notifications: Int
    /// Client connections posting at once.
    package var connections: Int
    /// Database connections the intake recorded on.
    package var databaseConnections: Int
    /// Seconds from the first request to the last 200.
    package var seconds: Double
    /// Notifications answered 200 (committed) per second.
    package var acceptedPerSecond: Double
    /// Whether every notification was answered 200 and is a row.
    package var correct: Bool

    /// Posts `notifications` notifications signed by `chain` to an intake recording into the migrated database at
    /// `connectionString`, over `connections` connections.
    package static func measure(
        connectionString: String,
        chain: AppleTestChain,
        notifications: Int,
        connections: Int = 32,
        databaseConnections: Int = ReceiptDaemon.Configuration().databaseConnections
    ) async throws -> NotificationIntakeThroughput {
        let quiet = Logger(label: "bench-intake", factory: { _ in SwiftLogNoOpLogHandler() })
        let bodies = (0..<notifications).map { index in
            Array(chain.notificationBody(Self.refund(index, chain: chain)))
        }
        let pool = PostgresJobQueue.pool(
            connectionString: connectionString,
            connections: databaseConnections,
            lease: ReceiptDaemon.Configuration().lease
        )
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "bench-intake",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
        )
        var configuration = MetricsServer.Configuration(host: "127.0.0.1", port: 0)
        // Every client connection comes from 127.0.0.1, one peer, which may hold a quarter of the limit.
        configuration.maxConnections = connections * 4
        let server = NotificationServer(
            configuration: configuration,
            routes: [
                AppleNotificationRoute(
                    verifier: AppleNotificationVerifier(
                        jws: AppleJWSVerifier(roots: [chain.root]),
                        bundleID: SyntheticReceipt.defaultBundleID,
                        sandbox: .accept,
                        appAppleID: nil
                    ),
                    intake: queue,
                    logger: quiet
                )
            ],
            logger: quiet
        )
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let group = ServiceGroup(configuration: .init(services: [server], logger: quiet))
        let result: (accepted: Int, seconds: Double)
        do {
            result = try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                do {
                    guard let port = await server.port() else {
                        throw ToolError("the notification intake did not bind")
                    }
                    let measured = try await post(bodies, to: port, client: client, connections: connections)
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                    return measured
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
            }
        } catch {
            try? await client.shutdown()
            await pool.close()
            throw error
        }
        try await client.shutdown()
        let rows = try await pool.execute("SELECT count(*) FROM iap.store_notifications WHERE source = 'push'")
        await pool.close()
        return NotificationIntakeThroughput(
            notifications: notifications,
            connections: connections,
            databaseConnections: databaseConnections,
            seconds: result.seconds,
            acceptedPerSecond: result.seconds > 0 ? Double(result.accepted) / result.seconds : 0,
            correct: result.accepted == notifications && rows.first?["count"] == String(notifications)
        )
    }

    /// Posts every body over `connections` workers; returns how many were answered 200, and the seconds it took.
    private static func post(
        _ bodies: [[UInt8]],
        to port: Int,
        client: HTTPClient,
        connections: Int
    ) async throws -> (accepted: Int, seconds: Double) {
        let url = "http://127.0.0.1:\(port)/notifications/apple"
        let start = ContinuousClock.now
        let accepted = try await withThrowingTaskGroup(of: Int.self) { workers in
            for worker in 0..<connections {
                workers.addTask {
                    var accepted = 0
                    for index in stride(from: worker, to: bodies.count, by: connections) {
                        var request = HTTPClientRequest(url: url)
                        request.method = .POST
                        request.body = .bytes(bodies[index])
                        let response = try await client.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 16)
                        if response.status.code == 200 { accepted += 1 }
                    }
                    return accepted
                }
            }
            return try await workers.reduce(0, +)
        }
        return (accepted, (ContinuousClock.now - start).seconds)
    }

    /// A REFUND of a transaction of its own, as Apple sends one.
    private static func refund(_ index: Int, chain: AppleTestChain) -> AppleNotificationPayload {
        let id = String(7_000_000_000 + index)
        return AppleNotificationPayload(
            notificationType: "REFUND",
            signedTransactionInfo: chain.signedTransaction(
                SignedTransactionPayload(
                    transactionId: id,
                    productId: "gems",
                    revocationDate: SignedTransactionPayload.nowMilliseconds(),
                    revocationReason: 0
                )
            )
        )
    }
}
