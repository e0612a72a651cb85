import AsyncHTTPClient
import CoreMetrics
import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ServiceLifecycle
import Testing

/// A test's world: its own database, its own stand-in App Store, and daemons run on demand.
struct Fixture: Sendable {
    static let sharedSecret = "test-shared-secret-0123"
    let database: TestDatabase
    let connection: PostgresConnection
    let standIn: AppStoreStandIn
    /// The App Store Connect key the daemons sign Server API requests with, and the stand-in checks them against.
    let serverAPIKey: ServerAPITestKey

    /// Builds the world, runs `body`, tears it down.
    static func with(
        sharedSecret: String? = Fixture.sharedSecret,
        database: TestDatabase? = nil,
        standIn adjustStandIn: (inout AppStoreStandIn.Configuration) -> Void = { _ in },
        _ body: (Fixture) async throws -> Void
    ) async throws {
        let database = if let database { database } else { try await TestEnvironment.shared.database() }
        let connection = try await database.connect()
        let serverAPIKey = ServerAPITestKey.generate()
        var standInConfiguration = AppStoreStandIn.Configuration(
            sharedSecret: sharedSecret,
            serverAPIKey: serverAPIKey.publicKey
        )
        adjustStandIn(&standInConfiguration)
        let standIn = AppStoreStandIn(
            configuration: standInConfiguration,
            logger: Logger(label: "fake-appstore", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        _ = try await standIn.start()
        let fixture = Fixture(database: database, connection: connection, standIn: standIn, serverAPIKey: serverAPIKey)
        do {
            try await body(fixture)
        } catch {
            try? await standIn.shutdown()
            await connection.close()
            throw error
        }
        try await standIn.shutdown()
        await connection.close()
    }

    /// Daemon settings for tests: fast polling and backoff, the stand-in as Apple.
    func settings(_ adjust: (inout ReceiptdSettings) -> Void = { _ in }) -> ReceiptdSettings {
        var settings = ReceiptdSettings(databaseURL: database.connectionString)
        (settings.apple.productionURL, settings.apple.sandboxURL) = (standIn.productionURL, standIn.sandboxURL)
        (settings.apple.sharedSecret, settings.apple.requestTimeout) = (Self.sharedSecret, .seconds(10))
        settings.daemon = ReceiptDaemon.Configuration()
        settings.daemon.concurrency = 16
        settings.daemon.maxAttempts = 5
        settings.daemon.backoff = Backoff(base: .milliseconds(50), maximum: .milliseconds(200))
        settings.daemon.pollInterval = .milliseconds(100)
        settings.daemon.expectedBundleID = SyntheticReceipt.defaultBundleID
        settings.daemon.lease = .seconds(30)
        settings.daemon.shutdownGrace = .seconds(1)
        settings.storeKit.trustedRoots = [standIn.testChain.root]
        settings.storeKit.credentials = ServerAPICredentials(
            issuerID: AppStoreStandIn.Configuration.defaultServerAPIIssuerID,
            keyID: AppStoreStandIn.Configuration.defaultServerAPIKeyID,
            privateKey: serverAPIKey.privateKey
        )
        (settings.storeKit.serverAPIURL, settings.storeKit.serverAPISandboxURL) = (
            standIn.serverAPIURL, standIn.serverAPISandboxURL
        )
        settings.storeKit.receiptRoots = [standIn.receiptChain.root]
        adjust(&settings)
        return settings
    }

    /// Runs one daemon (or `count`) while `body` runs, then shuts them down gracefully.
    func withDaemons(
        count: Int = 1,
        settings: ReceiptdSettings? = nil,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: ReceiptdMetrics = ReceiptdMetrics(factory: NOOPMetricsHandler.instance),
        notificationVerifier: NotificationHistoryPoller.Verify? = nil,
        _ body: ([ReceiptDaemon]) async throws -> Void
    ) async throws {
        let settings = settings ?? self.settings()
        let client = HTTPClient.makeForStores(concurrency: settings.daemon.concurrency)
        let daemons = (0..<count).map { _ in
            ReceiptDaemon(
                configuration: settings.daemon,
                connectionString: settings.databaseURL,
                verifier: AppleVerifier(configuration: settings.apple, client: client),
                storeKit: settings.storeKit,
                googlePlay: settings.googlePlay,
                trust: settings.trust,
                webhooks: settings.webhooks,
                logger: logger,
                metrics: metrics,
                notificationVerifier: notificationVerifier
            )
        }
        let group = ServiceGroup(
            configuration: .init(services: daemons + daemons.flatMap(\.companions), logger: logger)
        )
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                do {
                    try await body(daemons)
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// `iap.enqueue_receipt`; returns the job id.
    @discardableResult
    func enqueue(
        _ order: String,
        user: String = "u1",
        product: String = "gems",
        receipt: String,
        quantity: Int = 1
    ) async throws -> Int64 {
        let result = try await connection.execute(
            "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5) AS id",
            [order, user, product, receipt, quantity]
        )
        return Int64(try result.first!.int("id"))
    }

    /// `iap.enqueue_transaction`; returns the job id.
    @discardableResult
    func enqueue(
        _ order: String,
        user: String = "u1",
        product: String = "gems",
        transaction: String,
        quantity: Int = 1,
        appAccountToken: UUID? = nil
    ) async throws -> Int64 {
        let result = try await connection.execute(
            "SELECT iap.enqueue_transaction($1, $2, $3, $4, $5, $6::uuid) AS id",
            [order, user, product, transaction, quantity, appAccountToken?.uuidString]
        )
        return Int64(try result.first!.int("id"))
    }

    /// Runs several statements without parameters, such as a test's own trigger.
    func script(_ sql: String) async throws {
        try await connection.withSession { try $0.executeScript(sql) }
    }

    /// One row of `sql` as a dictionary of column → text.
    func row(_ sql: String, _ parameters: [any SQLParameter] = []) async throws -> QueryResult.Row {
        let result = try await connection.execute(sql, parameters)
        return try #require(result.first, "no row for \(sql)")
    }

    /// A single value.
    func value(_ sql: String, _ parameters: [any SQLParameter] = []) async throws -> String? {
        try await connection.execute(sql, parameters).rows.first?.first ?? nil
    }

    /// The order's outcome, delivered quantity, and its latest job's state, attempts and last error.
    func order(_ id: String) async throws -> QueryResult.Row {
        try await row(
            """
            SELECT o.outcome::text AS outcome, o.delivered_quantity, j.id, j.state, j.attempts, j.last_error, j.environment
            FROM iap.orders o JOIN iap.jobs j USING (order_id)
            WHERE o.order_id = $1 ORDER BY j.id DESC LIMIT 1
            """,
            [id]
        )
    }

    /// Waits until every job of the database is finished.
    func waitUntilSettled(timeout: Duration = .seconds(30)) async throws {
        try await waitUntil(timeout: timeout) {
            try await value("SELECT count(*) FROM iap.jobs WHERE state IN ('pending', 'running')") == "0"
        }
    }

    /// Polls `condition` until it holds or `timeout` passes (then the test fails).
    func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("condition not met within \(timeout)")
        throw CancellationError()
    }
}

/// Receipt builders shared by the tests.
enum Receipts {
    static var nowMilliseconds: String { String(Int64(Date().timeIntervalSince1970 * 1000)) }

    static func purchase(
        _ id: String,
        product: String = "gems",
        quantity: String = "1",
        refunded: Bool = false
    ) -> SyntheticTransaction {
        SyntheticTransaction(
            transactionID: id,
            productID: product,
            quantity: quantity,
            purchaseDateMilliseconds: nowMilliseconds,
            cancellationDateMilliseconds: refunded ? nowMilliseconds : nil
        )
    }

    static func paying(
        _ ids: String...,
        product: String = "gems",
        script: [ScriptStep]? = nil,
        delay: Int? = nil
    ) -> String {
        SyntheticReceipt(inApp: ids.map { purchase($0, product: product) }, delayMilliseconds: delay, script: script)
            .encoded()
    }
}
