import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit
import ServiceLifecycle

/// The whole pipeline on a throwaway PostgreSQL and the stand-in App Store, with one sample order
/// for each outcome and each path through the daemon (`receiptd demo`).
package struct DemoRun {
    /// One order as the demo leaves it.
    package struct Row: Sendable {
        /// Order, user, quantity, delivered quantity, outcome, status, and its jobs (`id:state (last error)`).
        package var orderID, userID, quantity, delivered, outcome, status, jobs: String
        /// What the scenario says the outcome must be.
        package var expectedOutcome: String?
        /// What the scenario says the status must be, where it says.
        package var expectedStatus: String?
        /// The state of the order's provisional grant (`unconfirmed`, `confirmed`, `refuted`); nil without one.
        package var provisional: String? = nil

        /// Whether the order ended as the scenario says.
        package var isExpected: Bool {
            expectedOutcome.map { $0 == outcome } ?? true && expectedStatus.map { $0 == status } ?? true
        }
    }

    /// The audience of the demo's Google pushes (`GOOGLE_PUBSUB_AUDIENCE`).
    static let googlePushAudience = "receiptd-demo"

    let logger: Logger
    let say: @Sendable (String) -> Void

    /// Creates a demo that logs to `logger` and narrates through `say`.
    package init(logger: Logger, say: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.say = say
    }

    /// What the demo leaves: every order with its outcome, the number of ledger rows, the unclaimed payments, and
    /// the webhooks the stand-in receiver got.
    package typealias Outcome = (rows: [Row], ledger: Int, unclaimed: [String], webhooks: DemoWebhooks)

    /// Runs the demo and returns what it left. With `afterwards`, calls it with that and the throwaway database
    /// once the daemon and the stand-ins have stopped, before the database is removed (`receiptd demo --console`).
    package func run(
        afterwards: (@Sendable (Outcome, DemoDatabase) async throws -> Void)? = nil
    ) async throws -> Outcome {
        say("Starting a throwaway PostgreSQL …")
        let postgres = try TemporaryPostgres.start()
        defer { postgres.stop() }
        let serverAPIKey = ServerAPITestKey.generate()
        let standIn = AppStoreStandIn(
            configuration: .init(
                sharedSecret: "demo-shared-secret",
                latency: .fixed(milliseconds: 50),
                serverAPIKey: serverAPIKey.publicKey
            ),
            logger: logger
        )
        _ = try await standIn.start()
        let googlePlay = GooglePlayStandIn(logger: logger)
        _ = try await googlePlay.start()
        // The game server's webhook endpoint, trusting a fresh secret the daemon reads from a private file.
        let secretFile = try WebhookSecretFile()
        defer { secretFile.remove() }
        let receiver = WebhookReceiverStandIn(secrets: secretFile.secrets, logger: logger)
        _ = try await receiver.start()
        let client = HTTPClient.makeForStores(concurrency: 16)
        let result: Outcome
        do {
            result = try await run(
                database: postgres.connectionString(),
                standIn: standIn,
                serverAPIKey: serverAPIKey,
                googlePlay: googlePlay,
                receiver: receiver,
                secrets: secretFile.secrets,
                client: client
            )
            try await client.shutdown()
            try await standIn.shutdown()
            try await googlePlay.shutdown()
            try await receiver.shutdown()
        } catch {
            try? await client.shutdown()
            try? await standIn.shutdown()
            try? await googlePlay.shutdown()
            try? await receiver.shutdown()
            throw error
        }
        if let afterwards {
            let directory = URL(fileURLWithPath: postgres.dataDirectory).deletingLastPathComponent().path
            try await afterwards(
                result,
                DemoDatabase(
                    connectionString: postgres.connectionString(),
                    dataDirectory: postgres.dataDirectory,
                    directory: directory
                )
            )
        }
        return result
    }

    private func run(
        database: String,
        standIn: AppStoreStandIn,
        serverAPIKey: ServerAPITestKey,
        googlePlay: GooglePlayStandIn,
        receiver: WebhookReceiverStandIn,
        secrets: WebhookSecrets,
        client: HTTPClient
    ) async throws -> Outcome {
        let connection = try await PostgresConnection.connect(database)
        try await Migrator.migrate(connection)
        // The daemon writes this at its start too; written first here, so that no change races it unreported.
        try await connection.execute("SELECT iap.set_webhook_endpoint(true)")
        say("Schema migrated; stand-in App Store at \(standIn.productionURL)")
        say("Stand-in webhook receiver (the game server's endpoint) at \(receiver.url), trusting a fresh whsec_ secret")
        var apple = AppleVerifier.Configuration()
        (apple.productionURL, apple.sandboxURL) = (standIn.productionURL, standIn.sandboxURL)
        (apple.sharedSecret, apple.requestTimeout) = ("demo-shared-secret", .seconds(10))
        var storeKit = StoreKitConfiguration()
        storeKit.trustedRoots = [standIn.testChain.root]
        storeKit.credentials = ServerAPICredentials(
            issuerID: AppStoreStandIn.Configuration.defaultServerAPIIssuerID,
            keyID: AppStoreStandIn.Configuration.defaultServerAPIKeyID,
            privateKey: serverAPIKey.privateKey
        )
        (storeKit.serverAPIURL, storeKit.serverAPISandboxURL) = (standIn.serverAPIURL, standIn.serverAPISandboxURL)
        storeKit.receiptRoots = [standIn.receiptChain.root]
        var configuration = ReceiptDaemon.Configuration()
        configuration.concurrency = 16
        configuration.backoff = Backoff(base: .milliseconds(200), maximum: .seconds(2))
        configuration.pollInterval = .milliseconds(200)
        configuration.expectedBundleID = SyntheticReceipt.defaultBundleID
        configuration.lease = .seconds(15)
        configuration.shutdownGrace = .seconds(2)
        // The demo's game answers Google's chargeback review at once and leaves Apple's consumption request to
        // the policy, which answers after three seconds.
        configuration.refunds.gameWait = .seconds(3)
        let daemon = ReceiptDaemon(
            configuration: configuration,
            connectionString: database,
            verifier: AppleVerifier(configuration: apple, client: client),
            storeKit: storeKit,
            googlePlay: try googlePlayConfiguration(googlePlay),
            trust: Self.trust,
            webhooks: Self.webhookConfiguration(url: receiver.url, secrets: secrets),
            logger: logger
        )
        // The notification endpoint, on a free loopback port, as RECEIPTD_NOTIFICATIONS_ADDR would serve it.
        let intake = NotificationServer(
            configuration: MetricsServer.Configuration(host: "127.0.0.1", port: 0),
            routes: [
                AppleNotificationRoute(
                    verifier: AppleNotificationVerifier(storeKit: storeKit, daemon: configuration),
                    intake: daemon.makeNotificationIntake(),
                    logger: logger
                ),
                GoogleNotificationRoute(
                    configuration: try googlePlayConfiguration(googlePlay),
                    client: client,
                    intake: daemon.makeNotificationIntake(),
                    logger: logger
                ),
            ],
            logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(services: [daemon] + daemon.companions + [intake], logger: logger)
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                try await checkOut(on: connection)
                try await enqueueSamples(on: connection)
                try await enqueueTransactions(on: connection, standIn: standIn)
                try await enqueueGooglePurchases(on: connection)
                try await waitForOutcomes(on: connection, timeout: .seconds(60))
                try await waitForAcknowledgements(on: connection, googlePlay: googlePlay, timeout: .seconds(30))
                try await grant(on: connection)
                guard let port = await intake.port() else {
                    throw ToolError("demo: the notification endpoint did not start")
                }
                try await hearAppleAfterDelivery(
                    on: connection,
                    standIn: standIn,
                    intakeURL: "http://127.0.0.1:\(port)/notifications/apple"
                )
                try await hearGoogleWithoutTheClient(
                    on: connection,
                    googlePlay: googlePlay,
                    intakeURL: "http://127.0.0.1:\(port)/notifications/google"
                )
                try await sellVIPPass(
                    on: connection,
                    standIn: standIn,
                    intakeURL: "http://127.0.0.1:\(port)/notifications/apple"
                )
                try await sellGoogleVIPPass(
                    on: connection,
                    googlePlay: googlePlay,
                    intakeURL: "http://127.0.0.1:\(port)/notifications/google"
                )
                try await failTheReceiverTwice(receiver, on: connection)
                try await serveTrustedThroughOutage(on: connection, standIn: standIn)
                try await finishWebhooks(receiver, on: connection)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let result = try await outcomes(from: connection)
        let webhooks = try await webhookReport(from: connection, receiver: receiver)
        await connection.close()
        return (result.rows, result.ledger, result.unclaimed, webhooks)
    }

    /// The game server's side before payment: its catalogue, checkouts, and an order it closes unpaid.
    private func checkOut(on connection: PostgresConnection) async throws {
        for product in DemoScenario.catalogue {
            try await connection.execute(
                "SELECT iap.define_product($1, $2, $3)",
                [product.store, product.productID, product.kind.rawValue]
            )
        }
        say(
            "Declared the catalogue: "
                + DemoScenario.catalogue.map { "\($0.store) \($0.productID) \($0.kind.rawValue)" }.joined(
                    separator: ", "
                )
        )
        for checkout in DemoScenario.checkouts {
            try await connection.execute(
                "SELECT iap.create_order($1, $2, $3)",
                [checkout.orderID, checkout.userID, checkout.productID]
            )
        }
        for order in DemoScenario.closed { try await connection.execute("SELECT iap.close_order($1)", [order]) }
        say("Checked out \(DemoScenario.checkouts.count) orders and closed \(DemoScenario.closed.count) unpaid")
    }

    /// The game server's side after payment: it hands over what `iap.owed_deliveries` lists for the order and
    /// confirms exactly those transactions, so one delivered meanwhile stays owed.
    private func grant(on connection: PostgresConnection) async throws {
        for order in DemoScenario.granted {
            let marked =
                try await connection.execute(
                    """
                    SELECT iap.mark_granted(o.order_id, ARRAY(SELECT d.transaction_id FROM iap.owed_deliveries(o.user_id) d
                                                              WHERE d.order_id = o.order_id)) AS n
                    FROM iap.orders o WHERE o.order_id = $1
                    """,
                    [order]
                ).first?.int("n") ?? 0
            say("Granted \(order): \(marked) delivered transaction(s) confirmed")
        }
    }

    private func enqueueSamples(on connection: PostgresConnection) async throws {
        let calls = DemoScenario().calls
        for call in calls {
            if call.after > 0 { try await Task.sleep(for: .seconds(call.after)) }
            try await connection.execute(
                "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5)",
                [call.orderID, call.userID, call.productID, call.receipt.encoded(), call.quantity]
            )
        }
        say("Enqueued \(calls.count) receipts; the daemon is verifying them …")
    }

    private func enqueueTransactions(on connection: PostgresConnection, standIn: AppStoreStandIn) async throws {
        let calls = try DemoScenario.transactions(standIn: standIn)
        for call in calls {
            try await connection.execute(
                "SELECT iap.enqueue_transaction($1, $2, $3, $4, 1, $5::uuid)",
                [call.orderID, call.userID, call.productID, call.transaction, call.appAccountToken?.uuidString]
            )
        }
        say("Enqueued \(calls.count) StoreKit 2 transactions (signed, by id, forged, revoked, another account's)")
    }

    /// The daemon's settings for the stand-in Google Play: its service account, as a key file would give it.
    private func googlePlayConfiguration(_ googlePlay: GooglePlayStandIn) throws -> GooglePlayConfiguration {
        var configuration = GooglePlayConfiguration()
        configuration.serviceAccount = try GoogleServiceAccount(
            json: Data(googlePlay.serviceAccount.json(tokenURI: googlePlay.tokenURL).utf8)
        )
        configuration.packageName = googlePlay.packageName
        configuration.apiURL = googlePlay.baseURL
        // Pushes as the stand-in signs them (`GooglePlayStandIn.push`'s default audience is the push URL; the demo
        // names its own).
        configuration.oidcCertsURL = googlePlay.oidcCertsURL
        configuration.pubsubAudience = Self.googlePushAudience
        configuration.pubsubServiceAccountEmail = GoogleOIDCIssuer.defaultServiceAccountEmail
        return configuration
    }

    private func enqueueGooglePurchases(on connection: PostgresConnection) async throws {
        let calls = DemoScenario.googlePurchases()
        for call in calls {
            if call.orderID == "demo-gp-replay" {
                // The replayed orderId comes after the purchase it copies has settled, as a replay does.
                try await waitForOutcome(of: "demo-gp-purchased", on: connection)
            }
            try await connection.execute(
                "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, 1, $5)",
                [call.orderID, call.userID, call.productID, call.token.encoded(), call.accountID]
            )
        }
        say(
            "Enqueued \(calls.count) Google Play purchases (gems purchased, pending, cancelled, a replayed orderId, another account's; the ad-free upgrade)"
        )
        // The pending purchase: Google reports it pending, the job waits (a minute, at first) without using attempts.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let waiting = try await connection.execute(
                "SELECT last_error FROM iap.jobs WHERE order_id = 'demo-gp-pending' AND state = 'pending'"
            ).first?["last_error"]
            if let waiting, waiting.contains("pending at Google") {
                say("demo-gp-pending: \(waiting); the demo skips the wait")
                try await connection.execute(
                    "UPDATE iap.jobs SET run_at = now() WHERE order_id = 'demo-gp-pending' AND state = 'pending'"
                )
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private func waitForOutcome(of order: String, on connection: PostgresConnection) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await connection.execute(
                "SELECT 1 FROM iap.orders WHERE order_id = $1 AND outcome IS NOT NULL",
                [order]
            ).first != nil {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ToolError("demo: \(order) has no outcome after 30 s")
    }

    /// Waits until every delivered Google purchase is acknowledged, then says how many calls Google got.
    private func waitForAcknowledgements(
        on connection: PostgresConnection,
        googlePlay: GooglePlayStandIn,
        timeout: Duration
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let owed =
                try await connection.execute(
                    "SELECT count(*) AS n FROM iap.google_finalizations WHERE done_at IS NULL"
                ).first?.int("n") ?? 0
            if owed == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let calls = googlePlay.recordedFinalizations().filter { $0.httpStatus == 200 }
        let tokens = Set(calls.map(\.token)).count
        let byProduct = Dictionary(grouping: calls, by: \.productID).mapValues { Set($0.map(\.action.rawValue)) }
        say(
            "Google Play: \(calls.count) finalizing call(s) for \(tokens) delivered purchase(s), each once, by the "
                + "catalogue's kind: "
                + byProduct.keys.sorted().map { "\($0) \(byProduct[$0]!.sorted().joined(separator: "+"))" }.joined(
                    separator: ", "
                ) + "; none for what paid nothing"
        )
        if calls.count != tokens || tokens != 3 || byProduct["com.example.gems100"] != ["consume"]
            || byProduct["com.example.no_ads"] != ["acknowledge"]
        {
            throw ToolError("demo: Google's finalizing calls are not one per delivered purchase by its kind")
        }
    }

    private func waitForOutcomes(on connection: PostgresConnection, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let open =
                try await connection.execute(
                    "SELECT count(*) AS n FROM iap.jobs WHERE state IN ('pending', 'running')"
                ).first?.int("n") ?? 0
            if open == 0 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ToolError("demo: orders still open after \(timeout)")
    }

    private func outcomes(
        from connection: PostgresConnection
    ) async throws -> (rows: [Row], ledger: Int, unclaimed: [String]) {
        let rows = try await connection.execute(
            """
            SELECT o.order_id, o.user_id, o.quantity, o.delivered_quantity, coalesce(o.outcome::text, '-') AS outcome,
                   o.status::text AS status, (SELECT g.state FROM iap.provisional_grants g WHERE g.order_id = o.order_id) AS provisional,
                   coalesce(string_agg(j.id || ':' || j.state || coalesce(' (' || j.last_error || ')', ''), ', ' ORDER BY j.id), '-')
                       AS jobs
            FROM iap.orders o LEFT JOIN iap.jobs j USING (order_id)
            GROUP BY o.order_id ORDER BY min(j.id) NULLS LAST, o.order_id
            """
        ).namedRows.map { row in
            let order = try row.string("order_id")
            return Row(
                orderID: order,
                userID: try row.string("user_id"),
                quantity: try row.string("quantity"),
                delivered: try row.string("delivered_quantity"),
                outcome: try row.string("outcome"),
                status: try row.string("status"),
                jobs: try row.string("jobs"),
                expectedOutcome: DemoScenario.expectedOutcomes[order] ?? DemoScenario.expectedTransactionOutcomes[order]
                    ?? DemoScenario.expectedGoogleOutcomes[order],
                expectedStatus: DemoScenario.expectedStatuses[order],
                provisional: row["provisional"]
            )
        }
        let ledger = try await connection.execute("SELECT count(*) AS n FROM iap.deliveries").first?.int("n") ?? 0
        let unclaimed = try await connection.execute(
            """
            SELECT transaction_id || ' (' || product_id || ', ' || coalesce('user ' || user_id, 'no user') || ')'
            FROM iap.unclaimed_payments ORDER BY transaction_id
            """
        ).rows.compactMap { $0[0] }
        return (rows, ledger, unclaimed)
    }
}
