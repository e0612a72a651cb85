import ArgumentParser
import AsyncHTTPClient
import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ServiceLifecycle

/// `receiptd demo`: the whole pipeline on a throwaway PostgreSQL and the stand-in App Store.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run receiptd end to end on a throwaway PostgreSQL and the stand-in App Store, and print each order's outcome.")

    @Option(help: "Log level of the daemon during the demo.") var logLevel: Logger.Level = .notice

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "receiptd")
        print("Starting a throwaway PostgreSQL …")
        let postgres = try TemporaryPostgres.start()
        defer { postgres.stop() }
        let standIn = AppStoreStandIn(configuration: .init(sharedSecret: "demo-shared-secret", latency: .fixed(milliseconds: 50)))
        _ = try await standIn.start()
        let client = HTTPClient.makeForApple(concurrency: 16)
        do {
            try await runDemo(postgres: postgres, standIn: standIn, client: client, logger: logger)
        } catch {
            try? await client.shutdown()
            try? await standIn.shutdown()
            throw error
        }
        try await client.shutdown()
        try await standIn.shutdown()
    }

    private func runDemo(postgres: TemporaryPostgres, standIn: AppStoreStandIn, client: HTTPClient, logger: Logger) async throws {
        let database = postgres.connectionString()
        let connection = try await PostgresConnection.connect(database)
        try await Migrator.migrate(connection)
        print("Schema migrated; stand-in App Store at \(standIn.productionURL)")

        var settings = ReceiptdSettings(databaseURL: database)
        settings.apple = .init(productionURL: standIn.productionURL, sandboxURL: standIn.sandboxURL,
                               sharedSecret: "demo-shared-secret", requestTimeout: .seconds(10))
        settings.daemon = .init(concurrency: 16, backoff: Backoff(base: 0.2, maximum: 2), pollInterval: 0.2, lease: 15, shutdownGrace: 2)
        let daemon = ReceiptDaemon(configuration: settings.daemon, connectionString: database,
                                   verifier: AppleVerifier(configuration: settings.apple, client: client), logger: logger)
        let group = ServiceGroup(configuration: .init(services: [daemon], logger: logger))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await enqueueSamples(on: connection)
            try await waitForOutcomes(on: connection, timeout: .seconds(60))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await printOutcomes(from: connection)
        await connection.close()
    }

    private func enqueueSamples(on connection: PostgresConnection) async throws {
        for call in DemoScenario().calls {
            if call.after > 0 { try await Task.sleep(for: .seconds(call.after)) }
            try await connection.execute("SELECT iap.enqueue_receipt($1, $2, $3, $4, $5)",
                                         [call.orderID, call.userID, call.productID, call.receipt.encoded(), call.quantity])
        }
        print("Enqueued \(DemoScenario().calls.count) receipts; the daemon is verifying them …")
    }

    private func waitForOutcomes(on connection: PostgresConnection, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let open = try await connection.execute(
                "SELECT count(*) AS n FROM iap.jobs WHERE state IN ('pending', 'running')").first?.int("n") ?? 0
            if open == 0 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ValidationError("demo: orders still open after \(timeout)")
    }

    private func printOutcomes(from connection: PostgresConnection) async throws {
        let rows = try await connection.execute("""
            SELECT o.order_id, o.user_id, o.quantity, o.delivered_quantity, o.outcome::text AS outcome,
                   string_agg(j.id || ':' || j.state || coalesce(' (' || j.last_error || ')', ''), ', ' ORDER BY j.id) AS jobs
            FROM iap.orders o JOIN iap.jobs j USING (order_id)
            GROUP BY o.order_id ORDER BY min(j.id)
            """).namedRows
        print("")
        print("order            user     qty delivered outcome    jobs")
        for row in rows {
            let cells = [row["order_id"] ?? "", row["user_id"] ?? "", row["quantity"] ?? "", row["delivered_quantity"] ?? "",
                         row["outcome"] ?? "-", row["jobs"] ?? ""]
            let widths = [16, 8, 3, 9, 10, 0]
            print(zip(cells, widths).map { $1 == 0 ? $0 : $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " "))
        }
        let ledger = try await connection.execute("SELECT count(*) AS n FROM iap.deliveries").first?.int("n") ?? 0
        print("\nLedger: \(ledger) transactions delivered, each once.")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
