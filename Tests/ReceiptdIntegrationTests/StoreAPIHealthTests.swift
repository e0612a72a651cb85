import FakeAppStore
import Foundation
import Logging
import Prometheus
import Testing

@testable import ReceiptdCore

/// Per-API health and claims by kind: a failing store API pauses only the jobs that need it, and a daemon claims
/// only the job kinds it knows.
@Suite struct StoreAPIHealthTests {
    private static let quiet = Logger(label: "fake-googleplay", factory: { _ in SwiftLogNoOpLogHandler() })

    private func enqueueGoogle(_ f: Fixture, _ order: String, user: String, orderID: String) async throws {
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, 'gems', $3, 1)",
            [order, user, SyntheticPurchaseToken(productID: "gems", orderID: orderID).encoded()]
        )
    }

    /// Google answering 403 for every token (a service account not yet granted) used to pause claiming for every
    /// job: 40 App Store receipts settled 0 of 40 in 92 s. Now Google's breaker pauses Google jobs only, the
    /// daemon says which API, and once Google answers, the probe takes a Google job and they settle.
    @Test func googleFailingLeavesAppStoreReceiptsSettling() async throws {
        try await Fixture.with { f in
            let google = GooglePlayStandIn(logger: Self.quiet)
            _ = try await google.start()
            google.failPurchaseLookups(status: 403)
            let settings = f.settings {
                $0.googlePlay.serviceAccount = try? GoogleServiceAccount(
                    json: Data(google.serviceAccount.json(tokenURI: google.tokenURL).utf8)
                )
                $0.googlePlay.packageName = "com.example.game"
                $0.googlePlay.apiURL = google.baseURL
                $0.daemon.concurrency = 16
                $0.daemon.maxAttempts = 1000
                // Short cool-downs, so the recovery below comes soon; the old single breaker still probed with
                // one Google job after another, each failing, long past the deadline below.
                $0.daemon.circuitBreaker.baseCooldown = .milliseconds(500)
                $0.daemon.circuitBreaker.maximumCooldown = .seconds(2)
            }
            for index in 0..<16 {
                try await enqueueGoogle(f, "g\(index)", user: "gu\(index)", orderID: "GPA.77-\(index)")
            }
            let lines = CapturingLogHandler.Lines()
            let registry = PrometheusCollectorRegistry()
            let metrics = ReceiptdMetrics(factory: ReceiptdMetrics.prometheusFactory(registry: registry))
            do {
                try await f.withDaemons(
                    settings: settings,
                    logger: CapturingLogHandler.logger(into: lines),
                    metrics: metrics
                ) { _ in
                    try await f.waitUntil {
                        try await f.value(
                            "SELECT count(*) FROM iap.jobs WHERE kind = 'google_purchase' AND attempts >= 1 AND state = 'pending'"
                        ) == "16"
                    }
                    // The Google jobs' retries fall due before the receipts below are enqueued.
                    try await Task.sleep(for: .milliseconds(500))
                    for index in 0..<40 {
                        try await f.enqueue("a\(index)", user: "au\(index)", receipt: Receipts.paying("880\(index)"))
                    }
                    try await f.waitUntil(timeout: .seconds(10)) {
                        try await f.value(
                            "SELECT count(*) FROM iap.orders WHERE order_id LIKE 'a%' AND outcome = 'full'"
                        ) == "40"
                    }
                    #expect(
                        try await f.value(
                            "SELECT count(*) FROM iap.jobs WHERE kind = 'google_purchase' AND state = 'pending'"
                        ) == "16"
                    )
                    // What the operator sees: the daemon names the API in its log, its metrics and `receiptd status`.
                    try await f.waitUntil {
                        try await f.value("SELECT paused_apis::text FROM iap.daemons") == "{google_play}"
                    }
                    let status = try await OperatorQueries(connection: f.connection).status()
                    #expect(status.daemons.map(\.pausedAPIs) == [["google_play"]])
                    #expect(
                        lines.all.contains {
                            $0.contains("google_play is failing: pausing claims") && $0.contains(#""api": google_play"#)
                        }
                    )
                    #expect(!lines.all.contains { $0.contains("verify_receipt is failing") })
                    #expect(
                        Self.exported(registry).contains(
                            #"receiptd_store_api_paused{api="google_play",store="google"} 1.0"#
                        )
                    )
                    #expect(
                        Self.exported(registry).contains(
                            #"receiptd_store_api_paused{api="verify_receipt",store="apple"} 0.0"#
                        )
                    )

                    google.failPurchaseLookups(status: nil)
                    try await f.waitUntilSettled()
                    try await f.waitUntil { try await f.value("SELECT paused_apis::text FROM iap.daemons") == "{}" }
                }
            } catch {
                try? await google.shutdown()
                throw error
            }
            try await google.shutdown()
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "56")
            #expect(
                lines.all.contains {
                    $0.contains("google_play is answering again: claiming resumes for the jobs that need it")
                }
            )
        }
    }

    /// An older daemon beside a newer one: a claim that knows fewer kinds never takes a job of another kind,
    /// even one due first, and leaves it `pending` untouched; the claim that knows more takes it.
    @Test func aClaimTakesOnlyTheKindsItKnows() async throws {
        try await Fixture.with { f in
            try await enqueueGoogle(f, "g1", user: "u1", orderID: "GPA.1")
            try await f.enqueue("t1", user: "u2", transaction: "2000000000000001")
            for index in 1...3 {
                try await f.enqueue("r\(index)", user: "ur\(index)", receipt: Receipts.paying("990\(index)"))
            }
            let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
            let planner = DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: "x")
            let older = PostgresJobQueue(pool: pool, owner: "older:1:a", planner: planner)
            let newer = PostgresJobQueue(pool: pool, owner: "newer:2:b", planner: planner)

            let first = try await older.claim(limit: 2, filter: ClaimFilter(kinds: [.receipt]))
            #expect(first.map(\.order.orderID) == ["r1", "r2"], "the receipts, past the earlier jobs of other kinds")
            let rest = try await older.claim(limit: 100, filter: ClaimFilter(kinds: [.receipt]))
            #expect(rest.map(\.order.orderID) == ["r3"])
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(kind || ':' || state || ':' || attempts || ':' || coalesce(locked_by, '-'), ',' ORDER BY id)
                    FROM iap.jobs WHERE kind <> 'receipt'
                    """
                ) == "google_purchase:pending:0:-,transaction:pending:0:-"
            )

            let taken = try await newer.claim(limit: 100)
            #expect(taken.map(\.kind) == [.googlePurchase, .transaction])
            #expect(try await older.claim(limit: 100, filter: ClaimFilter(kinds: [.receipt])).isEmpty)
            await pool.close()
        }
    }

    /// A job of a kind this binary does not know (added by a later migration) stays `pending` untouched, while
    /// the daemon settles the jobs around it; the old daemon claimed it and lost its whole batch.
    @Test func aJobOfAnUnknownKindStaysPendingWhileTheOthersSettle() async throws {
        try await Fixture.with { f in
            // A later schema's kind, as a newer migration would add it.
            try await f.connection.execute("ALTER TABLE iap.jobs DROP CONSTRAINT jobs_kind_check")
            try await enqueueGoogle(f, "future", user: "u0", orderID: "GPA.9")
            try await f.connection.execute("UPDATE iap.jobs SET kind = 'amazon_purchase' WHERE order_id = 'future'")
            for index in 1...5 {
                try await f.enqueue("r\(index)", user: "ur\(index)", receipt: Receipts.paying("770\(index)"))
            }
            try await f.withDaemons { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.orders WHERE order_id LIKE 'r%' AND outcome = 'full'")
                        == "5"
                }
            }
            let future = try await f.row(
                "SELECT state, attempts, locked_by, started_at, last_error FROM iap.jobs WHERE order_id = 'future'"
            )
            #expect(future["state"] == "pending" && future["attempts"] == "0")
            #expect(future["locked_by"] == nil && future["started_at"] == nil && future["last_error"] == nil)
        }
    }

    /// The migration that adds `iap.daemons.paused_apis` upgrades a database holding daemons.
    @Test func thePausedAPIsMigrationUpgradesADatabaseWithData() async throws {
        let migration = try #require(Migration.all.first { $0.name == "paused_apis" })
        let previous = try #require(Migration.all.last { $0.version < migration.version })
        let database = try await TestEnvironment.shared.emptyDatabase()
        let connection = try await database.connect()
        try await Migrator.migrate(connection, upTo: previous.version)
        try await connection.execute("INSERT INTO iap.daemons (daemon, in_flight) VALUES ('old-host:1:x', 3)")
        try await Migrator.migrate(connection)
        let row = try #require(
            try await connection.execute("SELECT daemon, in_flight, paused_apis::text AS paused FROM iap.daemons").first
        )
        #expect(row["daemon"] == "old-host:1:x" && row["in_flight"] == "3" && row["paused"] == "{}")
        await connection.close()
    }

    private static func exported(_ registry: PrometheusCollectorRegistry) -> [String] {
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
