import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import ReceiptdCore
import ServiceLifecycle
import Testing

/// Issue 19, the intake: `POST /notifications/apple` over real HTTP into a real database. 200 only once the row
/// is committed, the same notification again changes nothing, every failed check answers 400 or 401 and stores
/// nothing, and each refusal is counted and logged without the payload.
@Suite struct AppleNotificationIntakeTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// What a test gets while the intake runs.
    struct Intake {
        /// The bound port.
        var port: Int
        /// The refusal counters and everything else the intake counts.
        var registry: PrometheusCollectorRegistry

        /// `receiptd_notifications_refused_total{store="apple",reason}` as exported.
        func refused(_ reason: String) -> Int {
            let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
            let prefix = #"receiptd_notifications_refused_total{store="apple",reason="\#(reason)"} "#
            let other = #"receiptd_notifications_refused_total{reason="\#(reason)",store="apple"} "#
            let line = text.split(separator: "\n").first { $0.hasPrefix(prefix) || $0.hasPrefix(other) }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
    }

    /// Runs a `NotificationServer` with the Apple route on a free loopback port, recording into `f`'s database on
    /// a pool of its own, while `body` runs.
    static func withIntake(
        _ f: Fixture,
        settings adjust: (inout ReceiptdSettings) -> Void = { _ in },
        server: (inout MetricsServer.Configuration) -> Void = { _ in },
        logger: Logger = AppleNotificationIntakeTests.quiet,
        _ body: (Intake) async throws -> Void
    ) async throws {
        let settings = f.settings(adjust)
        let pool = PostgresJobQueue.pool(connectionString: settings.databaseURL, connections: 4, lease: .seconds(30))
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "intake-test",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: settings.daemon.expectedBundleID)
        )
        let registry = PrometheusCollectorRegistry()
        var configuration = MetricsServer.Configuration(host: "127.0.0.1", port: 0)
        server(&configuration)
        let intake = NotificationServer(
            configuration: configuration,
            routes: [
                AppleNotificationRoute(
                    verifier: AppleNotificationVerifier(settings: settings),
                    intake: queue,
                    logger: logger
                )
            ],
            trustedProxies: settings.trustedProxies,
            logger: logger,
            metrics: ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
        )
        let group = ServiceGroup(configuration: .init(services: [intake], logger: quiet))
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                do {
                    let port = try #require(await intake.port())
                    try await body(Intake(port: port, registry: registry))
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    /// POSTs (or `method`s) `body` to `path`; returns the status code and the answer's body.
    static func post(
        _ port: Int,
        _ body: Data,
        path: String = "/notifications/apple",
        method: HTTPMethod = .POST
    ) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: answer))
    }

    /// A REFUND of transaction `id` (reason 1, app issue), signed by `chain`.
    static func refund(
        _ id: String,
        chain: AppleTestChain,
        uuid: String = UUID().uuidString.lowercased(),
        bundle: String = SyntheticReceipt.defaultBundleID,
        environment: String = "Production",
        appAppleId: Int64? = nil
    ) -> AppleNotificationPayload {
        AppleNotificationPayload(
            notificationType: "REFUND",
            notificationUUID: uuid,
            bundleId: bundle,
            appAppleId: appAppleId,
            environment: environment,
            signedTransactionInfo: chain.signedTransaction(
                SignedTransactionPayload(
                    transactionId: id,
                    originalTransactionId: "orig-\(id)",
                    bundleId: bundle,
                    productId: "gems",
                    environment: environment,
                    revocationDate: SignedTransactionPayload.nowMilliseconds(),
                    revocationReason: 1
                )
            )
        )
    }

    static func count(_ f: Fixture) async throws -> Int {
        Int(try await f.value("SELECT count(*) FROM iap.store_notifications") ?? "") ?? -1
    }

    @Test func aRefundIsRecordedOnceAndItsRetryChangesNothing() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f) { intake in
                let payload = Self.refund("8001", chain: f.standIn.testChain)
                let body = f.standIn.testChain.notificationBody(payload)
                let (status, _) = try await Self.post(intake.port, body)
                #expect(status == 200)
                let row = try await f.row(
                    """
                    SELECT store, notification_id, notification_type, subtype, transaction_id, original_transaction_id,
                           environment, (extract(epoch FROM signed_at) * 1000)::bigint AS signed_ms, source,
                           processed_at, result, received_at IS NOT NULL AS received,
                           payload->'notification'->>'notificationUUID' AS uuid,
                           payload->'notification'->'data'->>'signedTransactionInfo' AS jws,
                           payload->'transaction'->>'transactionId' AS transaction,
                           payload->'transaction'->>'revocationReason' AS revocation_reason
                    FROM iap.store_notifications
                    """
                )
                #expect(row["store"] == "apple" && row["notification_id"] == payload.notificationUUID)
                #expect(row["notification_type"] == "REFUND" && row["subtype"] == nil)
                #expect(row["transaction_id"] == "8001" && row["original_transaction_id"] == "orig-8001")
                #expect(row["environment"] == "Production" && row["signed_ms"] == String(payload.signedDate))
                #expect(row["source"] == "push" && row["processed_at"] == nil && row["result"] == nil)
                #expect(row["received"] == "t" && row["uuid"] == payload.notificationUUID)
                #expect(row["jws"] == payload.signedTransactionInfo, "the notification as signed")
                #expect(row["transaction"] == "8001" && row["revocation_reason"] == "1", "the verified transaction")

                // Apple retries with the same notification: 200, and nothing changes.
                let before = try await f.value("SELECT received_at::text FROM iap.store_notifications")
                let (again, _) = try await Self.post(intake.port, body)
                #expect(again == 200)
                #expect(try await Self.count(f) == 1)
                #expect(try await f.value("SELECT received_at::text FROM iap.store_notifications") == before)
            }
        }
    }

    @Test func aSummaryWithoutDataIsRecordedWithoutATransaction() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f) { intake in
                let payload = AppleNotificationPayload(
                    notificationType: "RENEWAL_EXTENSION",
                    subtype: "SUMMARY",
                    hasData: false
                )
                let (status, _) = try await Self.post(intake.port, f.standIn.testChain.notificationBody(payload))
                #expect(status == 200)
                let row = try await f.row(
                    """
                    SELECT notification_type, subtype, transaction_id, environment, payload ? 'transaction' AS has_tx,
                           payload->'notification'->'summary'->>'bundleId' AS bundle
                    FROM iap.store_notifications
                    """
                )
                #expect(row["notification_type"] == "RENEWAL_EXTENSION" && row["subtype"] == "SUMMARY")
                #expect(row["transaction_id"] == nil && row["environment"] == "Production")
                #expect(row["has_tx"] == "f" && row["bundle"] == SyntheticReceipt.defaultBundleID)
            }
        }
    }

    @Test func untrustedNotificationsAnswer401AndStoreNothing() async throws {
        let foreign = try AppleTestChain.generate()
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            let settings: (inout ReceiptdSettings) -> Void = {
                $0.daemon.sandbox = .reject
                $0.storeKit.appAppleID = 1_234_567
            }
            try await Self.withIntake(f, settings: settings) { intake in
                let cases: [(name: String, body: Data, reason: String)] = [
                    ("forged chain", foreign.notificationBody(Self.refund("8101", chain: foreign)), "chain"),
                    (
                        "another bundle",
                        chain.notificationBody(Self.refund("8102", chain: chain, bundle: "com.other.app")), "bundle"
                    ),
                    (
                        "sandbox under reject",
                        chain.notificationBody(Self.refund("8103", chain: chain, environment: "Sandbox")),
                        "environment"
                    ),
                    (
                        "appAppleId mismatch",
                        chain.notificationBody(Self.refund("8104", chain: chain, appAppleId: 7_654_321)),
                        "app_apple_id"
                    ),
                ]
                for check in cases {
                    let (status, answer) = try await Self.post(intake.port, check.body)
                    #expect(status == 401 && answer == "\(check.reason)\n", "\(check.name): \(status) \(answer)")
                    #expect(intake.refused(check.reason) == 1, "\(check.name) is counted")
                }
                #expect(try await Self.count(f) == 0)
                // The right app id passes.
                let good = chain.notificationBody(Self.refund("8105", chain: chain, appAppleId: 1_234_567))
                #expect(try await Self.post(intake.port, good).0 == 200)
                #expect(try await Self.count(f) == 1)
            }
        }
    }

    @Test func malformedRequestsAnswer400AndOtherRequests404Or405() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f) { intake in
                let jws = f.standIn.testChain.signedNotification(Self.refund("8201", chain: f.standIn.testChain))
                let cases: [(name: String, body: Data, reason: String)] = [
                    ("not JSON", Data("signedPayload=abc".utf8), "body"),
                    ("JSON without signedPayload", Data(#"{"payload":"x"}"#.utf8), "body"),
                    ("not a JWS", Data(#"{"signedPayload":"not-a-jws"}"#.utf8), "malformed"),
                    (
                        "truncated JWS", Data(#"{"signedPayload":"\#(jws.prefix(jws.count / 2))"}"#.utf8),
                        "malformed"
                    ),
                ]
                for check in cases {
                    let (status, answer) = try await Self.post(intake.port, check.body)
                    #expect(status == 400 && answer == "\(check.reason)\n", "\(check.name): \(status) \(answer)")
                }
                #expect(intake.refused("body") == 2 && intake.refused("malformed") == 2)
                #expect(try await Self.post(intake.port, Data(), path: "/notifications/google").0 == 404)
                #expect(try await Self.post(intake.port, Data(), path: "/metrics", method: .GET).0 == 404)
                #expect(try await Self.post(intake.port, Data(), method: .GET).0 == 405)
                #expect(try await Self.post(intake.port, Data(), method: .PUT).0 == 405)
                #expect(try await Self.count(f) == 0)
            }
        }
    }

    @Test func refusalsAreLoggedOncePerCauseWithoutThePayload() async throws {
        let foreign = try AppleTestChain.generate()
        try await Fixture.with { f in
            let lines = CapturingLogHandler.Lines()
            try await Self.withIntake(f, logger: CapturingLogHandler.logger(into: lines)) { intake in
                var payloads: [String] = []
                for index in 0..<5 {
                    let jws = foreign.signedNotification(Self.refund("83\(index)", chain: foreign))
                    payloads.append(jws)
                    let (status, _) = try await Self.post(intake.port, Data(#"{"signedPayload":"\#(jws)"}"#.utf8))
                    #expect(status == 401)
                }
                #expect(intake.refused("chain") == 5, "every refusal is counted")
                let refusals = lines.all.filter { $0.contains("refused a store notification") }
                #expect(refusals.count == 1, "one line per cause per minute: \(refusals)")
                #expect(refusals.first?.contains("chain") == true)
                for jws in payloads {
                    for piece in jws.split(separator: ".") {
                        #expect(!lines.all.contains { $0.contains(piece.prefix(40)) }, "no part of the JWS is logged")
                    }
                }
            }
        }
    }
}
