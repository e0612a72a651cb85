import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import NIOCore
import Prometheus
import ReceiptdCore
import ServiceLifecycle
import Testing

/// Issue 20, the intake: `POST /notifications/google` over real HTTP into a real database, pushed by the stand-in
/// Google Play with OIDC tokens its JWKS publishes. 200 only once the row is committed, a redelivered message
/// changes nothing, another app's message is 204 and not stored, and every failed check stores nothing.
@Suite struct GoogleNotificationIntakeTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    /// The push subscription's audience the intake is configured with.
    static let audience = "https://receiptd.test/notifications/google"

    /// What a test gets while the intake runs.
    struct Intake {
        /// The bound port.
        var port: Int
        /// The refusal counters.
        var registry: PrometheusCollectorRegistry

        /// The push URL.
        var url: String { "http://127.0.0.1:\(port)/notifications/google" }

        /// `receiptd_notifications_refused_total{store="google",reason}` as exported.
        func refused(_ reason: String) -> Int {
            let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
            let prefix = #"receiptd_notifications_refused_total{store="google",reason="\#(reason)"} "#
            let other = #"receiptd_notifications_refused_total{reason="\#(reason)",store="google"} "#
            let line = text.split(separator: "\n").first { $0.hasPrefix(prefix) || $0.hasPrefix(other) }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
    }

    /// Daemon settings with the push configured for ``audience``, the stand-in's service account and JWKS.
    static func pushSettings(_ google: GooglePlayStandIn) -> (inout ReceiptdSettings) -> Void {
        {
            $0.googlePlay.oidcCertsURL = google.oidcCertsURL
            $0.googlePlay.pubsubAudience = audience
            $0.googlePlay.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
        }
    }

    /// Runs a `NotificationServer` with the Google route on a free loopback port, recording into `settings`'
    /// database on a pool of its own, while `body` runs.
    static func withIntake(
        _ settings: ReceiptdSettings,
        _ body: (Intake) async throws -> Void
    ) async throws {
        let pool = PostgresJobQueue.pool(connectionString: settings.databaseURL, connections: 4, lease: .seconds(30))
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "google-intake-test",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: settings.daemon.expectedBundleID)
        )
        let registry = PrometheusCollectorRegistry()
        let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
        let intake = NotificationServer(
            configuration: MetricsServer.Configuration(host: "127.0.0.1", port: 0),
            routes: [
                GoogleNotificationRoute(
                    configuration: settings.googlePlay,
                    client: HTTPClient.shared,
                    intake: queue,
                    logger: quiet,
                    metrics: metrics
                )
            ],
            logger: quiet,
            metrics: metrics
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

    /// The stand-in Google Play and the intake configured for its pushes.
    static func withGoogleIntake(
        settings adjust: @escaping (inout ReceiptdSettings) -> Void = { _ in },
        _ body: (Fixture, GooglePlayStandIn, Intake) async throws -> Void
    ) async throws {
        let google = GooglePlayStandIn(logger: quiet)
        _ = try await google.start()
        do {
            try await Fixture.with { f in
                let settings = f.settings {
                    $0.googlePlay.packageName = google.packageName
                    pushSettings(google)(&$0)
                    adjust(&$0)
                }
                try await withIntake(settings) { try await body(f, google, $0) }
            }
        } catch {
            try? await google.shutdown()
            throw error
        }
        try await google.shutdown()
    }

    /// POSTs `body` with `authorization`; the status and the answer's body.
    static func post(_ url: String, _ body: Data, authorization: String?) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: answer))
    }

    /// A valid bearer header from `google`'s issuer for ``audience``.
    static func bearer(_ google: GooglePlayStandIn) -> String {
        "Bearer " + google.oidc.token(audience: audience)
    }

    static func count(_ f: Fixture) async throws -> Int {
        Int(try await f.value("SELECT count(*) FROM iap.store_notifications") ?? "") ?? -1
    }

    @Test func aVoidedPurchaseIsRecordedAsAgreed() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let notification = GoogleDeveloperNotification.voided(
                token: "tok-void-1",
                orderID: "GPA.1111-2222-3333-44444",
                packageName: google.packageName
            )
            let status = try await google.push(notification, to: intake.url, audience: Self.audience, messageID: "m-1")
            #expect(status == 200)
            let row = try await f.row(
                """
                SELECT store, notification_id, notification_type, subtype, transaction_id, original_transaction_id,
                       environment, source, awaiting_lookup, processed_at IS NULL AS unprocessed,
                       abs(extract(epoch FROM now() - signed_at)) < 60 AS signed_now,
                       payload->'message'->>'messageId' AS message_id,
                       payload->'message'->>'subscription' AS subscription,
                       payload->'message' ? 'data' AS has_data,
                       payload->'message' ? 'publishTime' AS has_publish_time,
                       payload->'notification'->>'packageName' AS package,
                       payload->'notification'->'voidedPurchaseNotification'->>'purchaseToken' AS token,
                       payload->'notification'->'voidedPurchaseNotification'->>'refundType' AS refund_type
                FROM iap.store_notifications
                """
            )
            #expect(row["store"] == "google" && row["notification_id"] == "m-1")
            #expect(row["notification_type"] == "VOIDED_PURCHASE")
            #expect(row["transaction_id"] == "GPA.1111-2222-3333-44444")
            #expect(row["subtype"] == nil && row["original_transaction_id"] == nil && row["environment"] == nil)
            #expect(row["source"] == "push" && row["awaiting_lookup"] == "f" && row["unprocessed"] == "t")
            #expect(row["signed_now"] == "t")
            #expect(row["message_id"] == "m-1" && row["subscription"] == GooglePlayStandIn.pushSubscription)
            #expect(row["has_data"] == "f" && row["has_publish_time"] == "t")
            #expect(row["package"] == google.packageName && row["token"] == "tok-void-1" && row["refund_type"] == "1")
            #expect(intake.refused("token") == 0)
        }
    }

    @Test func eachTypeIsRecordedWithItsLookupAndLedgerID() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let package = google.packageName
            let pushes: [(String, GoogleDeveloperNotification)] = [
                ("purchased", .oneTimeProduct(token: "tok-p", sku: "gems", packageName: package)),
                ("canceled", .oneTimeProduct(token: "tok-c", sku: "gems", canceled: true, packageName: package)),
                ("partial", .voided(token: "tok-v", orderID: nil, refundType: 2, packageName: package)),
                ("test", .test(packageName: package)),
            ]
            for (id, notification) in pushes {
                #expect(
                    try await google.push(notification, to: intake.url, audience: Self.audience, messageID: id) == 200
                )
            }
            let rows = try await f.connection.execute(
                """
                SELECT notification_id, notification_type, transaction_id, awaiting_lookup::text
                FROM iap.store_notifications ORDER BY id
                """
            )
            // A purchase without an orderId (a test purchase) is known by its token's SHA-256.
            let testPurchaseID = try #require(
                try await f.value("SELECT encode(sha256(convert_to('tok-v', 'UTF8')), 'hex')")
            )
            #expect(
                rows.rows.map { $0.map { $0 ?? "NULL" } } == [
                    ["purchased", "ONE_TIME_PRODUCT_PURCHASED", "NULL", "true"],
                    ["canceled", "ONE_TIME_PRODUCT_CANCELED", "NULL", "false"],
                    ["partial", "VOIDED_PURCHASE", testPurchaseID, "true"],
                    ["test", "TEST", "NULL", "false"],
                ]
            )
        }
    }

    @Test func bothSpellingsOfTheMessageAreTaken() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let data = try JSONEncoder().encode(GoogleDeveloperNotification.test(packageName: google.packageName))
            let published = Date(timeIntervalSince1970: 1_780_000_000.25)
            for (id, spelling) in [("camel", GooglePlayStandIn.PushSpelling.camelCase), ("snake", .snakeCase)] {
                let body = GooglePlayStandIn.pushBody(
                    data: data,
                    messageID: id,
                    publishTime: published,
                    attributes: ["origin": id],
                    spelling: spelling
                )
                let (status, answer) = try await Self.post(intake.url, body, authorization: Self.bearer(google))
                #expect(status == 200 && answer == "recorded\n", "\(spelling): \(status) \(answer)")
            }
            let rows = try await f.connection.execute(
                """
                SELECT notification_id, (extract(epoch FROM signed_at) * 1000)::bigint::text,
                       payload->'message'->'attributes'->>'origin'
                FROM iap.store_notifications ORDER BY id
                """
            )
            #expect(rows.rows == [["camel", "1780000000250", "camel"], ["snake", "1780000000250", "snake"]])
        }
    }

    @Test func aRedeliveredMessageAnswers200AndChangesNothing() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let notification = GoogleDeveloperNotification.test(packageName: google.packageName)
            let body = GooglePlayStandIn.pushBody(data: try JSONEncoder().encode(notification), messageID: "again")
            let first = try await Self.post(intake.url, body, authorization: Self.bearer(google))
            let before = try await f.value("SELECT payload::text FROM iap.store_notifications")
            // Pub/Sub redelivers with a fresh publish attempt; the message id is what makes it the same.
            let redelivered = GooglePlayStandIn.pushBody(
                data: try JSONEncoder().encode(notification),
                messageID: "again",
                publishTime: Date().addingTimeInterval(30)
            )
            let second = try await Self.post(intake.url, redelivered, authorization: Self.bearer(google))
            #expect(first == (200, "recorded\n") && second == (200, "already recorded\n"), "\(first) \(second)")
            #expect(try await Self.count(f) == 1)
            #expect(try await f.value("SELECT payload::text FROM iap.store_notifications") == before)
        }
    }

    @Test func anotherAppsMessageIsSkippedWith204AndCounted() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let other = GoogleDeveloperNotification.voided(token: "t", orderID: "GPA.9", packageName: "com.other.app")
            let first = try await google.push(other, to: intake.url, audience: Self.audience)
            let again = try await google.push(other, to: intake.url, audience: Self.audience)
            #expect(first == 204 && again == 204)
            #expect(try await Self.count(f) == 0)
            #expect(intake.refused("other_package") == 2)
        }
    }

    @Test func withoutThePushSettingsEveryPushIsRefused() async throws {
        try await Self.withGoogleIntake(settings: { $0.googlePlay.pubsubAudience = nil }) { f, google, intake in
            let notification = GoogleDeveloperNotification.test(packageName: google.packageName)
            let body = GooglePlayStandIn.pushBody(data: try JSONEncoder().encode(notification), messageID: "n-1")
            let (status, answer) = try await Self.post(intake.url, body, authorization: Self.bearer(google))
            #expect(status == 401 && answer == "not_configured\n", "\(status) \(answer)")
            #expect(try await Self.count(f) == 0)
            #expect(intake.refused("not_configured") == 1)
            #expect(google.jwksFetches() == 0)
        }
    }

    @Test func badBodiesAnswer400() async throws {
        try await Self.withGoogleIntake { f, google, intake in
            let test = try JSONEncoder().encode(GoogleDeveloperNotification.test(packageName: google.packageName))
            let cases: [(Data, String)] = [
                (Data("not json".utf8), "body"),
                (Data(#"{"subscription":"s"}"#.utf8), "body"),
                (Data(#"{"message":{"data":"*** not base64 ***","messageId":"b-1"}}"#.utf8), "malformed"),
                (
                    Data(
                        #"{"message":{"data":"\#(Data("[1,2]".utf8).base64EncodedString())","messageId":"b-2"}}"#.utf8
                    ), "malformed"
                ),
                (
                    Data(
                        #"{"message":{"data":"\#(Data(#"{"x":1}"#.utf8).base64EncodedString())","messageId":"b-3"}}"#
                            .utf8
                    ), "malformed"
                ),
                (Data(#"{"message":{"data":"\#(test.base64EncodedString())"}}"#.utf8), "malformed"),
            ]
            for (body, reason) in cases {
                let (status, answer) = try await Self.post(intake.url, body, authorization: Self.bearer(google))
                #expect(
                    status == 400 && answer == "\(reason)\n",
                    "\(String(decoding: body, as: UTF8.self)): \(status) \(answer)"
                )
            }
            #expect(try await Self.count(f) == 0)
            #expect(intake.refused("body") == 2 && intake.refused("malformed") == 4)
        }
    }
}
